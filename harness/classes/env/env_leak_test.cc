// The env-leak judge (env_leak.cc): the caller's canary value of a variable seen outside, driven
// through run_attempt.

#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

class EnvLeak : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt env = attempt("env-leak");
};

// env-leak: the caller's canary value of the variable, in what the sandboxed command printed.
ExecScript prints_env() {
  return [](const SpawnRequest& r, const LaunchSpec&) {
    std::string out;
    for (const auto& [k, v] : env_seen(r)) out += k + "=" + v + "\n";
    return exited(0, out);
  };
}

TEST_F(EnvLeak, ADeniedVariableInTheOutputIsAnEscape) {
  j.spawner.on_exec = prints_env();  // passes the whole caller environment on
  const AttemptRecord r = j.run(env, ws, "env:AWS_SECRET_ACCESS_KEY");
  EXPECT_VERDICT(r, Verdict::kEscape);
}

TEST_F(EnvLeak, ADeniedVariableFilteredOutIsAPassAndTheInheritedControlArrives) {
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    std::string out;
    for (const auto& [k, v] : env_seen(r))
      for (const auto& keep : r.policy->env.inherit)
        if (k == keep) out += k + "=" + v + "\n";
    return exited(0, out);
  };
  EXPECT_VERDICT(j.run(env, ws, "env:AWS_SECRET_ACCESS_KEY"), Verdict::kPass);
  EXPECT_VERDICT(j.run(env, ws, "env:BREAKOUT_INHERITED"), Verdict::kPass);
}

TEST_F(EnvLeak, AVariableWithoutACanaryCannotBeJudged) {
  // No skip path: a variable the caller never set has no token to look for (error, never pass).
  j.spawner.on_exec = prints_env();
  const AttemptRecord r = j.run(env, ws, "env:NOT_SET_BY_THE_CALLER");
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("no canary token"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
