// The fs-race-read judge of classes/race/race_read.cc: canaries planted under a deny-read
// directory in the workspace, its ancestor renamed, the secret's token seen outside; two execs;
// through run_attempt.

#include <gtest/gtest.h>

#include "harness/attempt/race_calibration.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

// The probe fs-race --op rename-read: moves the ancestor (first exec), then reads the target
// under its new name; a sandbox whose rule follows the inode refuses the secret's read
// (`mask_follows`), one whose rule is the old spelling does not.
ExecScript rename_read(bool mask_follows, int calib_wins = 0) {
  return [=](const SpawnRequest& r, const LaunchSpec&) {
    const fs::path ancestor = arg(r, "--ancestor"), moved = arg(r, "--moved"), target = arg(r, "--path");
    if (fs::exists(ancestor)) fs::rename(ancestor, moved);
    const fs::path now = moved / target.lexically_relative(ancestor);
    const bool secret = target.string().find("/secrets/") != std::string::npos;
    for (int i = 0; i < calib_wins; ++i) {
      const fs::path c = arg(r, "--calibrate");
      std::string line = contents(c / "key");
      append_text(c.string() + ".won", line);
    }
    if (secret && mask_follows) return exited(1, report_line({{"error", "EACCES"}}));
    return exited(0, contents(now) + report_line({{"read", true}}));
  };
}

class RaceRead : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& vault = j.policy("workspace-deny-read");  // denies workspace/vault/secrets
  const Attempt a = attempt("fs-race-read", {"--op", "rename-read", "--path", "{target}", "--ancestor",
                                             "{workspace}/vault", "--moved", "{workspace}/vault-moved-{tag}"});
  const Attempt flip = attempt("fs-race-read", {"--op", "rename-read", "--race", "--path", "{target}", "--ancestor",
                                                "{workspace}/vault", "--moved", "{workspace}/vault-moved-{tag}",
                                                "--calibrate", "{workspace}/calib-{tag}", "--wins", "8"});
};

TEST_F(RaceRead, TheSecretReadUnderItsNewNameIsAnEscape) {
  j.spawner.on_exec = rename_read(false);
  const AttemptRecord r = j.run(a, vault, "fs:workspace/vault/secrets/key");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["token_in_output_of"], nlohmann::json::array({"first", "next"}));
  EXPECT_EQ(r.evidence["ancestor_renamed"], true);
  EXPECT_EQ(j.spawner.requests().size(), 2u);
}

TEST_F(RaceRead, AMaskThatMovedWithTheDirectoryIsAPassAndTheOpenTwinIsRead) {
  j.spawner.on_exec = rename_read(true);
  const AttemptRecord denied = j.run(a, vault, "fs:workspace/vault/secrets/key");
  EXPECT_VERDICT(denied, Verdict::kPass);
  // The renamed canary is its own file, found by inode: not "seen in a file".
  EXPECT_EQ(denied.evidence["canary_now_at"].size(), 1u);
  EXPECT_VERDICT(j.run(a, vault, "fs:workspace/vault/open/key"), Verdict::kPass);
}

TEST_F(RaceRead, TheRacingVariantLostWithoutItsCalibrationWonIsInconclusive) {
  j.spawner.on_exec = rename_read(true, 0);
  const AttemptRecord r = j.run(flip, vault, "fs:workspace/vault/secrets/key");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_EQ(r.reason.rfind("inconclusive", 0), 0u) << r.reason;
  j.spawner.on_exec = rename_read(true, static_cast<int>(kCalibrationWins));  // 8 wins over the two execs: judged
  EXPECT_VERDICT(j.run(flip, vault, "fs:workspace/vault/secrets/key"), Verdict::kPass);
}

TEST_F(RaceRead, ATargetThatIsNoPlantedCanaryIsAnError) {
  const AttemptRecord r = j.run(a, vault, "fs:workspace/readable.txt");
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_EQ(j.spawner.requests().size(), 0u);
}

}  // namespace
}  // namespace breakout::judges
