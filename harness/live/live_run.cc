// One live case: plan its two executions (target, control), run them, confirm an escape by its control.
#include "harness/live/live_run.h"

#include "harness/attempt/run_attempt.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/host/name_server.h"
#include "harness/host/net_listeners.h"
#include "harness/platform/netns.h"
#include "harness/platform/os.h"
#include "harness/run/plan.h"
#include "harness/run/preflight.h"

namespace breakout {

std::map<std::string, Policy> load_live_policies(const std::filesystem::path& scenarios_dir) {
  std::map<std::string, Policy> out;
  for (const auto& name : all_live_policies())
    out[name] = load_policy_file(scenarios_dir / "policies" / (name + ".toml"));
  return out;
}

LiveNetwork::LiveNetwork(const std::string& nonce, const std::filesystem::path& work_root) {
  std::string why;
  external_ = ExternalHost::create(nonce, &why);
  listeners_ = std::make_unique<NonceListeners>(external_.get(), external_ ? "" : why);
  names_ = std::make_unique<NameServer>(external_.get(), work_root);
}

// Members go in reverse: the name server and listeners before the namespace they live in.
LiveNetwork::~LiveNetwork() = default;

LiveOutcome run_live_case(const LiveCase& c, const LiveSetup& s) {
  check(s.spawner != nullptr, "live case without a spawner");
  const auto policy = s.policies.find(c.policy);
  check(policy != s.policies.end(), "bad-live-case", "policy " + c.policy + " not loaded");
  Suite suite;
  suite.name = "live";
  suite.policies = {policy->second};
  suite.attempts = {live_attempt(c)};
  if (auto control = live_control_attempt(c)) suite.attempts.push_back(std::move(*control));
  // The planner computes expectations and skip reasons exactly as `breakout run` does; the plan
  // is {target, control} in that order (one attempt with both, or the target's then its control's).
  const NonceListeners* listeners = s.network ? s.network->listeners() : nullptr;
  const std::vector<Execution> plan = plan_executions(suite, *s.spawner, listeners, {"", platform_name()});
  if (s.check_probes) check_probes(s.probes_dir, plan);
  RunContext ctx;
  ctx.listeners = listeners;
  ctx.names = s.network ? s.network->names() : nullptr;
  ctx.external = s.network ? s.network->external() : nullptr;
  ctx.probes_dir = s.probes_dir;
  ctx.work_root = s.work_root;
  ctx.spawner = s.spawner;
  ctx.cancel = s.cancel;
  ctx.tree_pool = s.tree_pool;
  ctx.residue = s.residue;
  LiveOutcome o;
  o.target = run_attempt(plan.at(0), ctx);
  if (o.target.verdict == Verdict::kEscape && plan.size() > 1) {
    o.control = run_attempt(plan.at(1), ctx);
    o.escape = o.control->verdict == Verdict::kPass;
    o.unconfirmed = !o.escape;
  }
  return o;
}

namespace {

std::string join_words(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& a : v) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string record_words(const char* role, const AttemptRecord& r) {
  std::string w = std::string(role) + " " + r.target + " (expected " + r.expected + ": " + r.expected_why +
                  ")\n  verdict: " + to_string(r.verdict) + " — " + r.reason + "\n";
  if (!r.probe_argv.empty()) w += "  ran: " + printable_excerpt(join_words(r.probe_argv), 600) + "\n";
  if (!r.evidence.empty()) w += "  outside evidence: " + printable_excerpt(r.evidence.dump(), 1200) + "\n";
  if (!r.probe_report.is_null()) w += "  the probe's own word: " + printable_excerpt(r.probe_report.dump(), 400) + "\n";
  return w;
}

}  // namespace

std::string describe_outcome(const LiveCase& c, const LiveOutcome& o) {
  std::string w = describe_live_case(c) + "\n" + record_words("target", o.target);
  if (o.control) w += record_words("control", *o.control);
  if (o.escape) w += "ESCAPE: the target changed or leaked as seen from outside, and the control passed.\n";
  else if (o.unconfirmed) w += "Not counted: the target escaped but its control did not pass (the run is broken).\n";
  else w += "No escape.\n";
  return w;
}

}  // namespace breakout
