// The judges' test fixture (judge_run.h).
#include "tests/unit/judges/support/judge_run.h"

#include "harness/attempt/run_attempt.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/model/expectation.h"

namespace breakout::judges {

ExecScript writes_path(std::string text) {
  return [text = std::move(text)](const SpawnRequest& r, const LaunchSpec&) {
    write_text(arg(r, "--path"), text);
    return exited(0);
  };
}

ExecScript sends_nonce() {
  return [](const SpawnRequest& r, const LaunchSpec&) {
    send_nonce(arg(r, "--target"), arg(r, "--nonce"));
    return exited(0, report_line({{"sent", true}}));
  };
}

Attempt attempt(const std::string& klass, std::vector<std::string> args, std::string param) {
  Attempt a;
  const auto c = attempt_class_from(klass);
  check(c.has_value(), "fake", "no attempt class " + klass);
  a.klass = *c;
  a.id = "judges." + klass;
  a.title = "judge test of " + klass;
  a.probe = probe_for(*c);
  a.args = std::move(args);
  a.param = std::move(param);
  a.platforms = {"linux"};
  return a;
}

JudgeRun::JudgeRun() : work_("judges-" + random_hex(8)) {
  ctx.probes_dir = work_.path() / "probes";  // never run: the fake spawner stands in for the probes
  ctx.work_root = work_.path();
  ctx.spawner = &spawner;
  ctx.settle = std::chrono::milliseconds(20);
  ctx.heartbeat_grace = std::chrono::milliseconds(300);
  ctx.net_grace = std::chrono::milliseconds(300);
}

const Policy& JudgeRun::policy(const std::string& name) {
  auto it = policies_.find(name);
  if (it == policies_.end())
    it = policies_.emplace(name, load_policy_file(std::filesystem::path(BREAKOUT_SOURCE_DIR) / "scenarios" /
                                                  "policies" / (name + ".toml"))).first;
  return it->second;
}

NonceListeners& JudgeRun::listeners() {
  if (!listeners_) {
    listeners_ = std::make_unique<NonceListeners>(nullptr, "no external host in unit tests");
    ctx.listeners = listeners_.get();
  }
  return *listeners_;
}

Expected JudgeRun::expected(const Attempt& a, const Policy& p, const std::string& target) const {
  const std::optional<Target> t = target.empty() ? std::nullopt : std::optional<Target>(parse_target(target));
  return expect(a.klass, t ? &*t : nullptr, p, placeholder_roots()).value;
}

AttemptRecord JudgeRun::run(const Attempt& a, const Policy& p, const std::string& target) {
  return run_attempt(execution(a, p, target), ctx);
}

Execution JudgeRun::execution(const Attempt& a, const Policy& p, const std::string& target) {
  listeners();  // collateral and connect judges read them
  Execution ex;
  ex.index = next_index_++;
  ex.attempt = &a;
  ex.policy = &p;
  if (!target.empty()) ex.target = parse_target(target);
  ex.group = a.id + "@" + p.name;
  ex.id = ex.group + (target.empty() ? "" : "[" + target + "]");
  ex.expectation = expect(a.klass, ex.target ? &*ex.target : nullptr, p, placeholder_roots());
  return ex;
}

}  // namespace breakout::judges
