// The fs-race judge of classes/race/race_write.cc: the snapshot decides, and a denial where
// nothing happened is judged only when the calibration beside it (C.won lines, counted by the
// harness) was won; through run_attempt.
#include <gtest/gtest.h>

#include "harness/attempt/race_calibration.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

// The probe fs-race --op flip: `wins` lines of its calibration's victim in C.won, and the target
// written when `escapes`.
ExecScript races(int wins, bool escapes) {
  return [wins, escapes](const SpawnRequest& r, const LaunchSpec&) {
    for (int i = 0; i < wins; ++i) append_text(arg(r, "--calibrate") + ".won", "won\n");
    if (escapes) write_text(arg(r, "--path"), "raced\n");
    return exited(0, report_line({{"tries", 2000}, {"flips", 5000}, {"calib_tries", 2000}, {"elapsed_ms", 40}}));
  };
}

class RaceWrite : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("fs-race", {"--op", "flip", "--path", "{target}", "--link", "{workspace}/flip-{tag}",
                                        "--calibrate", "{workspace}/calib-{tag}", "--wins", "8"});
};

TEST_F(RaceWrite, ARaceWonAgainstTheSandboxIsAnEscape) {
  j.spawner.on_exec = races(0, true);  // an escape needs no calibration
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/new-file"), Verdict::kEscape);
}

TEST_F(RaceWrite, ARaceLostWithTheCalibrationWonIsAPassAndTheControlWrites) {
  j.spawner.on_exec = races(kCalibrationWins, false);
  const AttemptRecord r = j.run(a, ws, "fs:sibling/new-file");
  EXPECT_VERDICT(r, Verdict::kPass);
  EXPECT_EQ(r.evidence["race"]["calibration"]["wins"], kCalibrationWins);
  j.spawner.on_exec = races(kCalibrationWins, true);
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/new-file"), Verdict::kPass);
}

TEST_F(RaceWrite, ARaceLostWithoutTheCalibrationWonIsInconclusiveNeverPass) {
  j.spawner.on_exec = races(kCalibrationWins - 1, false);
  const AttemptRecord r = j.run(a, ws, "fs:sibling/new-file");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_EQ(r.reason.rfind("inconclusive", 0), 0u) << r.reason;
}

TEST_F(RaceWrite, AnUncalibratedRaceIsJudgedByTheSnapshotAlone) {
  const Attempt exchange = attempt("fs-race", {"--op", "exchange", "--path", "{target}"});
  EXPECT_VERDICT(j.run(exchange, ws, "fs:sibling/new-file"), Verdict::kPass);
}

}  // namespace
}  // namespace breakout::judges
