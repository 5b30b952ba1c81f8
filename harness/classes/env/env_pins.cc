// Class env-pinned: learn what the spawner pins, then aim caller overrides at it in one spelling ("pin:<form>").
//
// AstrBot PR #9895 review, comment 5: the caller's env was merged after the proxy poisoning, so
// HTTP_PROXY could simply be overridden. Pins come from the policy (env.pinned),
// the spawner's own declaration (driver hello.pinned_env) and a baseline exec
// (variables the spawner added or changed whose names route traffic or code:
// proxies, GIT_SSH*, LD_*, BASH_ENV, PYTHONPATH). Forms: exact name, other
// letter case (curl reads http_proxy before HTTP_PROXY on Linux), both cases,
// the name twice; "control" overrides the inherited BREAKOUT_INHERITED, which
// must arrive. Every override value is a fresh canary: seen in the child's
// output, it got through.
#include "harness/attempt/oracle.h"
#include "harness/classes/env/judge.h"

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/paths/attempt_tree.h"
#include "harness/model/expectation.h"

namespace breakout::oracles {

namespace {

struct PinAttack {
  std::map<std::string, std::string> pinned;  // name -> the value the child must see
  std::vector<std::string> tokens;            // override canaries
  nlohmann::json evidence = nlohmann::json::object();
};

std::string other_case(const std::string& name) {
  const std::string l = ascii_lower(name);
  if (l != name) return l;
  std::string u = name;
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

// Names whose value routes traffic or loads code: a spawner that sets them is pinning them.
bool security_relevant(const std::string& name) {
  const std::string l = ascii_lower(name);
  return l.find("proxy") != std::string::npos || l.rfind("git_ssh", 0) == 0 || l.rfind("git_config", 0) == 0 ||
         l.rfind("ld_", 0) == 0 || l == "bash_env" || l == "pythonpath" || l == "ssh_auth_sock" ||
         l == "git_terminal_prompt";
}

// Runs the baseline exec (no overrides) through `session`, learns the pins and fills
// request->env_overrides for `form`. A Skip when the spawner pins nothing to aim at,
// Error when the baseline exec fails.
OrSkip<PinAttack> aim_overrides(const std::string& form, const Spawner& spawner, SpawnSession& session,
                                SpawnRequest* request, const LaunchSpec& limits) {
  PinAttack a;
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& [k, v] : request->policy->env.pinned) {
    a.pinned[k] = v;
    sources[k] = "policy env.pinned";
  }
  for (const auto& [k, v] : spawner.pinned_env()) {
    a.pinned.emplace(k, v);
    if (!sources.contains(k)) sources[k] = "spawner (hello.pinned_env)";
  }
  // Baseline: what the child sees when the caller overrides nothing.
  SpawnRequest baseline = *request;
  baseline.env_overrides.clear();
  const LaunchResult base = session.exec(baseline, limits);
  check(base.started, "baseline exec failed: " + base.start_error);
  const nlohmann::json report = parse_probe_report(base.out);
  check(report.is_object() && report.contains("env") && report["env"].is_object(),
        "baseline exec: the env probe printed no environment");
  for (const auto& [name, value] : report["env"].items()) {
    if (!value.is_string() || !security_relevant(name) || a.pinned.count(name)) continue;
    const auto caller = request->caller_env.find(name);
    if (caller != request->caller_env.end() && caller->second == value.get<std::string>()) continue;
    a.pinned[name] = value.get<std::string>();
    sources[name] = "learned from the baseline exec";
  }
  a.evidence["pins"] = sources;
  auto add = [&](const std::string& name) {
    const std::string token = canary_token();
    request->env_overrides.emplace_back(name, token);
    a.tokens.push_back(token);
  };
  if (form == "control") {
    add(kOverrideControlVar);
  } else {
    if (a.pinned.empty())
      return Skip{"the spawner pins no variable (policy env.pinned, hello.pinned_env, baseline exec)"};
    for (const auto& [name, value] : a.pinned) {
      if (form == "exact") add(name);
      else if (form == "other-case" && other_case(name) != name) add(other_case(name));
      else if (form == "both-cases") add(name), add(other_case(name));
      else if (form == "duplicate") add(name), add(name);
    }
    if (request->env_overrides.empty()) return Skip{"no pinned name has another letter case"};
  }
  nlohmann::json sent = nlohmann::json::array();
  for (const auto& [k, v] : request->env_overrides) sent.push_back(printable_excerpt(k, 256) + "=" + v);
  a.evidence["overrides"] = sent;
  return a;
}

// Outside evidence: an override canary in the child's output. In-run control for denied
// forms: every pinned variable shows its pinned value.
Observation observe_overrides(const std::string& form, const PinAttack& attack, const LaunchResult& run) {
  Observation o;
  o.evidence = attack.evidence;
  nlohmann::json seen = nlohmann::json::array();
  for (const auto& t : attack.tokens)
    if (run.out.find(t) != std::string::npos || run.err.find(t) != std::string::npos) seen.push_back(t);
  o.evidence["override_tokens_seen"] = seen;
  if (!seen.empty()) {
    o.effect = Effect::kHappened;
    o.summary = form == "control" ? "the caller's value of " + std::string(kOverrideControlVar) + " reached the child"
                                  : "a caller override of a pinned variable reached the child (" + form + ")";
    return o;
  }
  o.effect = Effect::kNotHappened;
  o.summary = "no override reached the child's environment";
  if (form == "control") return o;
  // In-run control: the probe did print the environment, with the pins in place.
  const nlohmann::json report = parse_probe_report(run.out);
  std::string missing;
  for (const auto& [name, value] : attack.pinned) {
    const bool shown = report.is_object() && report.contains("env") && report["env"].is_object() &&
                       report["env"].contains(name) && report["env"][name] == value;
    if (!shown) missing += (missing.empty() ? "" : ", ") + printable_excerpt(name, 64);
  }
  if (!missing.empty()) o.in_run_control = "the child did not show the pinned value of " + missing;
  return o;
}

class EnvPins final : public Oracle {
 public:
  std::optional<Skip> before_exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to learn the pins in");
    return take(aim_overrides(s.ex.target->value, *s.ctx.spawner, *session, &s.request, s.limits), attack_);
  }
  Observation observe(Scene& s, const LaunchResult& run) override {
    return observe_overrides(s.ex.target->value, attack_, run);
  }

 private:
  PinAttack attack_;
};

}  // namespace

std::unique_ptr<Oracle> env_pins() { return make_oracle<EnvPins>(); }

}  // namespace breakout::oracles
