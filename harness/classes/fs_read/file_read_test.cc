// The fs-read judge (file_read.cc): a planted canary seen outside (the output, a file of the tree),
// driven through run_attempt.

#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

// The probe fs-read --echo: the file's bytes on stdout.
ExecScript echoes_path() {
  return [](const SpawnRequest& r, const LaunchSpec&) { return exited(0, contents(arg(r, "--path"))); };
}

class FileRead : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt read = attempt("fs-read", {"--path", "{target}", "--echo"});
};

TEST_F(FileRead, ADeniedSecretOnStdoutIsAnEscape) {
  j.spawner.on_exec = echoes_path();
  const AttemptRecord r = j.run(read, ws, "fs:~/.ssh/id_ed25519");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["token_seen_in"], nlohmann::json::array({"stdout"}));
}

TEST_F(FileRead, ADeniedSecretCopiedIntoTheWorkspaceIsAnEscape) {
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    write_text(r.roots.workspace / "loot", contents(arg(r, "--path")));  // a write the policy allows, of a secret
    return exited(0);
  };
  const AttemptRecord r = j.run(read, ws, "fs:~/.aws/credentials");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["token_seen_in"], nlohmann::json::array({"file workspace/loot"}));
}

TEST_F(FileRead, ADeniedSecretNotReadIsAPassAndTheControlIsRead) {
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return exited(1, "", "Permission denied\n"); };
  EXPECT_VERDICT(j.run(read, ws, "fs:~/.ssh/id_ed25519"), Verdict::kPass);
  j.spawner.on_exec = echoes_path();
  EXPECT_VERDICT(j.run(read, ws, "fs:~/readable.txt"), Verdict::kPass);
}

TEST_F(FileRead, AControlNotReadIsAnOverblock) {
  EXPECT_VERDICT(j.run(read, ws, "fs:workspace/readable.txt"), Verdict::kOverblock);
}

TEST_F(FileRead, AnUnavailablePathFormIsASkipOnlyWhenTheTokenWasSeenNowhere) {
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

}  // namespace
}  // namespace breakout::judges
