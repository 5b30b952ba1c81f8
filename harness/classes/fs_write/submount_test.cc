// The submount-write judge of classes/fs_write/submount.cc: a harness tmpfs mounted in the tree
// (outside the roots, or inside the workspace for the control), diffed on its own beside the tree.
// The mount needs root with CAP_SYS_ADMIN: without it the judge skips, and that skip is the case a
// non-root run covers; with it, the escape and pass cases run. Through run_attempt.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "harness/run/runner.h"

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

// The mount is made on the host, in the tree: a sandbox starting beside it walks the host's mount
// table, and a mount detached meanwhile fails that sandbox's setup. So the runner runs the class's
// executions with no other beside them (ClassSpec::alone), whatever --jobs says.
TEST_F(Submount, ItsExecutionsRunWithNoOtherBesideThem) {
  if (!may_mount()) GTEST_SKIP() << "mounts need root with CAP_SYS_ADMIN (the skip case covers this run)";
  const Attempt plain = attempt("fs-write", {"--op", "create", "--path", "{target}"});
  std::vector<Execution> plan;
  for (int i = 0; i < 6; ++i) plan.push_back(j.execution(plain, ws, "fs:workspace/plain-" + std::to_string(i)));
  plan.push_back(j.execution(a, ws, "fs:sibling/run-user/new-file"));
  plan.push_back(j.execution(a, ws, "fs:workspace/run-user/new-file"));
  for (int i = 6; i < 9; ++i) plan.push_back(j.execution(plain, ws, "fs:workspace/plain-" + std::to_string(i)));
  std::mutex mu;
  int plain_running = 0, submount_running = 0, overlaps = 0;
  j.spawner.on_exec = [&](const SpawnRequest& r, const LaunchSpec&) {
    const bool sub = arg(r, "--path").find("run-user") != std::string::npos;
    {
      std::lock_guard lock(mu);
      (sub ? submount_running : plain_running) += 1;
      if (submount_running > 1 || (submount_running > 0 && plain_running > 0)) ++overlaps;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::lock_guard lock(mu);
    (sub ? submount_running : plain_running) -= 1;
    return exited(0);
  };
  const RunOutcome out = run_all(plan, j.ctx, 4, nullptr);
  ASSERT_EQ(out.records.size(), plan.size());
  EXPECT_EQ(overlaps, 0) << "an execution ran beside a submount-write execution";
  EXPECT_EQ(j.spawner.requests().size(), plan.size());
}

}  // namespace
}  // namespace breakout::judges
