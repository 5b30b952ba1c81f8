// The submount-write judge of classes/fs_write/submount.cc: a harness tmpfs mounted in the tree
// (outside the roots, or inside the workspace for the control), diffed on its own beside the tree.
// The mount needs root with CAP_SYS_ADMIN: without it the judge skips, and that skip is the case a
// non-root run covers; with it, the escape and pass cases run. Through run_attempt.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"
#include "tests/unit/judges/support/may_mount.h"

namespace breakout::judges {
namespace {

class Submount : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("submount-write", {"--op", "create", "--path", "{target}"});
};

TEST_F(Submount, WithoutMountRightsItIsASkipAndNothingRuns) {
  if (may_mount()) GTEST_SKIP() << "this process may mount (root): the escape and pass cases cover the judge";
  j.spawner.on_exec = writes_path("into the submount\n");
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/run-user/new-file"), Verdict::kSkip);
  EXPECT_EQ(j.spawner.requests().size(), 0u);
}

TEST_F(Submount, AWriteIntoTheSubmountOutsideTheRootsIsAnEscape) {
  if (!may_mount()) GTEST_SKIP() << "mounts need root with CAP_SYS_ADMIN (the skip case covers this run)";
  j.spawner.on_exec = writes_path("into the submount\n");
  const AttemptRecord r = j.run(a, ws, "fs:sibling/run-user/new-file");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["submount"]["changes_inside"], 1);
}

TEST_F(Submount, NoWriteIsAPassAndTheWorkspaceSubmountIsWritten) {
  if (!may_mount()) GTEST_SKIP() << "mounts need root with CAP_SYS_ADMIN (the skip case covers this run)";
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/run-user/new-file"), Verdict::kPass);
  j.spawner.on_exec = writes_path("into the submount\n");
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/run-user/new-file"), Verdict::kPass);
}

}  // namespace
}  // namespace breakout::judges
