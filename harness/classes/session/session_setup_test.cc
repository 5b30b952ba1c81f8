// The session-setup judge of classes/session/session_setup.cc: the boot's own host changes, a
// widening outside the writable roots charged however cleanly shutdown undoes it. Through
// run_attempt with a fake spawner whose boot (open) changes the host.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

class SessionSetup : public ::testing::Test {
 protected:
  SessionSetup() { j.spawner.sessions = true; }
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("session-setup", {"--code", "0"});
};

TEST_F(SessionSetup, ABootThatGrantsWriteOutsideTheRootsIsAnEscape) {
  j.spawner.on_open = [](const SpawnRequest& r) {
    fs::permissions(r.roots.sibling, fs::perms::others_write | fs::perms::group_write, fs::perm_options::add);
  };
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_NE(r.reason.find("boot widened access outside the writable roots"), std::string::npos) << r.reason;
}

TEST_F(SessionSetup, ABootThatNarrowsOrChangesOnlyTheRootsIsAPass) {
  j.spawner.on_open = [](const SpawnRequest& r) {
    fs::permissions(r.roots.sibling, fs::perms::others_all, fs::perm_options::remove);  // narrowing: shown
    fs::permissions(r.roots.workspace, fs::perms::others_write, fs::perm_options::add);  // inside the roots
  };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
}

TEST_F(SessionSetup, ABootedSessionThatCannotRunItsExecCannotPass) {
  // No skip path in this judge: the failed in-run control is the error case.
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return exited(126, "", "cannot execute\n"); };
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("did not run its exec"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
