// The read judges of attempt/oracles/canary_token.cc (fs-read, env-leak): a planted canary seen
// outside (the output, a file of the tree), driven through run_attempt.

#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

// The probe fs-read --echo: the file's bytes on stdout.
ExecScript echoes_path() {
  return [](const SpawnRequest& r, const LaunchSpec&) { return exited(0, contents(arg(r, "--path"))); };
}

class CanaryToken : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt read = attempt("fs-read", {"--path", "{target}", "--echo"});
  const Attempt env = attempt("env-leak");
};

TEST_F(CanaryToken, ADeniedSecretOnStdoutIsAnEscape) {
  j.spawner.on_exec = echoes_path();
  const AttemptRecord r = j.run(read, ws, "fs:~/.ssh/id_ed25519");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["token_seen_in"], nlohmann::json::array({"stdout"}));
}

TEST_F(CanaryToken, ADeniedSecretCopiedIntoTheWorkspaceIsAnEscape) {
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    write_text(r.roots.workspace / "loot", contents(arg(r, "--path")));  // a write the policy allows, of a secret
    return exited(0);
  };
  const AttemptRecord r = j.run(read, ws, "fs:~/.aws/credentials");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["token_seen_in"], nlohmann::json::array({"file workspace/loot"}));
}

TEST_F(CanaryToken, ADeniedSecretNotReadIsAPassAndTheControlIsRead) {
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return exited(1, "", "Permission denied\n"); };
  EXPECT_VERDICT(j.run(read, ws, "fs:~/.ssh/id_ed25519"), Verdict::kPass);
  j.spawner.on_exec = echoes_path();
  EXPECT_VERDICT(j.run(read, ws, "fs:~/readable.txt"), Verdict::kPass);
}

TEST_F(CanaryToken, AControlNotReadIsAnOverblock) {
  EXPECT_VERDICT(j.run(read, ws, "fs:workspace/readable.txt"), Verdict::kOverblock);
}

TEST_F(CanaryToken, AnUnavailablePathFormIsASkipOnlyWhenTheTokenWasSeenNowhere) {
  const Attempt form = attempt("fs-read", {"--form", "short-name", "--path", "{target}", "--echo"});
  const std::string unavailable =
      report_line({{"form", "short-name"}, {"form_state", "unavailable"}, {"form_reason", "no 8.3 alias here"}});
  j.spawner.on_exec = [&](const SpawnRequest&, const LaunchSpec&) { return exited(1, unavailable); };
  EXPECT_VERDICT(j.run(form, ws, "fs:~/.ssh/id_ed25519"), Verdict::kSkip);
  j.spawner.on_exec = [&](const SpawnRequest& r, const LaunchSpec& l) {
    return exited(1, echoes_path()(r, l).out + unavailable);
  };
  EXPECT_VERDICT(j.run(form, ws, "fs:~/.ssh/id_ed25519"), Verdict::kEscape);
}

// env-leak: the caller's canary value of the variable, in what the sandboxed command printed.
ExecScript prints_env() {
  return [](const SpawnRequest& r, const LaunchSpec&) {
    std::string out;
    for (const auto& [k, v] : env_seen(r)) out += k + "=" + v + "\n";
    return exited(0, out);
  };
}

TEST_F(CanaryToken, ADeniedVariableInTheOutputIsAnEscape) {
  j.spawner.on_exec = prints_env();  // passes the whole caller environment on
  const AttemptRecord r = j.run(env, ws, "env:AWS_SECRET_ACCESS_KEY");
  EXPECT_VERDICT(r, Verdict::kEscape);
}

TEST_F(CanaryToken, ADeniedVariableFilteredOutIsAPassAndTheInheritedControlArrives) {
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

TEST_F(CanaryToken, AVariableWithoutACanaryCannotBeJudged) {
  // No skip path: a variable the caller never set has no token to look for (error, never pass).
  j.spawner.on_exec = prints_env();
  const AttemptRecord r = j.run(env, ws, "env:NOT_SET_BY_THE_CALLER");
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("no canary token"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
