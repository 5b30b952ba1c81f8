// The session-hygiene judge of classes/session/session_hygiene.cc: boot, one exec that leaves a
// process, shutdown; no process and no change outside the workspace's contents may remain.
// Through run_attempt with a fake spawner that has sessions.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

class SessionHygiene : public ::testing::Test {
 protected:
  SessionHygiene() {
    j.spawner.sessions = true;
    j.spawner.on_close = [this] { beater.stop(); };
  }
  // The exec leaves a beater; the shutdown stops it when `shutdown_kills`.
  void leaves_beater(bool shutdown_kills) {
    j.spawner.on_exec = [this](const SpawnRequest& r, const LaunchSpec&) {
      beater.start(arg(r, "--heartbeat"));
      return exited(0);
    };
    if (shutdown_kills) j.spawner.on_shutdown = [this] { beater.stop(); };
  }
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("session-hygiene", {"--technique", "double-fork-setsid", "--heartbeat", "{heartbeat}"});
  Beater beater;
};

TEST_F(SessionHygiene, AProcessBeatingAfterShutdownIsAnEscape) {
  leaves_beater(false);
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_NE(r.reason.find("kept running after shutdown"), std::string::npos) << r.reason;
}

TEST_F(SessionHygiene, AChangeLeftOutsideTheWorkspaceIsAnEscape) {
  leaves_beater(true);
  j.spawner.on_open = [](const SpawnRequest& r) { write_text(r.roots.home / ".sandbox-leftover", "x\n"); };
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_NE(r.reason.find("home/.sandbox-leftover"), std::string::npos) << r.reason;
}

TEST_F(SessionHygiene, NothingLeftAfterShutdownIsAPass) {
  leaves_beater(true);
  j.spawner.on_open = [](const SpawnRequest& r) { write_text(r.roots.workspace / ".session", "x\n"); };  // inside: allowed
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
}

TEST_F(SessionHygiene, AnExecThatNeverRanCannotPass) {
  // No skip path in this judge: an exec whose heartbeat never started is the error case.
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("heartbeat never started"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
