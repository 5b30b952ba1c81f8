// The write judges of classes/fs_write/fs_change.cc (fs-write, io-uring-write, fs-meta, cwd-write,
// syscall-abi-write): the snapshot diff against the writable roots, driven through run_attempt.
#include <gtest/gtest.h>

#include <sys/xattr.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "harness/host/availability.h"
#include "harness/classes/host_object/spec_objects.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

class FsChange : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
};

TEST_F(FsChange, FsWriteOutsideTheRootsIsAnEscape) {
  const Attempt a = attempt("fs-write", {"--op", "create", "--path", "{target}"});
  j.spawner.on_exec = writes_path();
  const AttemptRecord r = j.run(a, ws, "fs:sibling/new-file");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_NE(r.reason.find("sibling/new-file created"), std::string::npos) << r.reason;
}

TEST_F(FsChange, FsWriteDeniedAndNotDoneIsAPassAndItsControlHappens) {
  const Attempt a = attempt("fs-write", {"--op", "create", "--path", "{target}"});
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/new-file"), Verdict::kPass);  // nothing written
  j.spawner.on_exec = writes_path();
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/new-file"), Verdict::kPass);  // the control, done
}

TEST_F(FsChange, FsWriteControlNotDoneIsAnOverblock) {
  const Attempt a = attempt("fs-write", {"--op", "create", "--path", "{target}"});
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/new-file"), Verdict::kOverblock);
}

TEST_F(FsChange, FsWriteThroughAnUnavailablePathFormIsASkipOnlyWhenNothingHappened) {
  const Attempt a = attempt("fs-write", {"--op", "create", "--form", "short-name", "--path", "{target}"});
  const std::string unavailable =
      report_line({{"form", "short-name"}, {"form_state", "unavailable"}, {"form_reason", "no 8.3 alias here"}});
  j.spawner.on_exec = [&](const SpawnRequest&, const LaunchSpec&) { return exited(1, unavailable); };
  const AttemptRecord r = j.run(a, ws, "fs:sibling/new-file");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("no 8.3 alias here"), std::string::npos) << r.reason;
  // The same excuse beside a write that happened: the host decides.
  j.spawner.on_exec = [&](const SpawnRequest& q, const LaunchSpec& l) {
    writes_path()(q, l);
    return exited(1, unavailable);
  };
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/new-file"), Verdict::kEscape);
}

TEST_F(FsChange, FsWriteThroughARouteTheHostLacksIsASkipOnlyWithTheHostsWordToo) {
  // --via wsl: wsl.exe is a Windows program, so the harness's own check of this Linux host says
  // the route is absent (interop_route.h); the probe's word alone never excuses.
  const Attempt a = attempt("fs-write", {"--op", "create", "--via", "wsl", "--path", "{target}"});
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) {
    return exited(1, report_line({{"route_state", "unavailable"}, {"route_reason", "no wsl.exe"}}));
  };
  const AttemptRecord r = j.run(a, ws, "fs:sibling/new-file");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("the harness's own check"), std::string::npos) << r.reason;
  const Attempt unasked = attempt("fs-write", {"--op", "create", "--path", "{target}"});
  EXPECT_VERDICT(j.run(unasked, ws, "fs:sibling/new-file"), Verdict::kPass);  // a route nobody asked for
}

TEST_F(FsChange, IoUringWriteIsJudgedByTheSnapshot) {
  const Attempt a = attempt("io-uring-write", {"--path", "{target}"});
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/uring-new"), Verdict::kPass);
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/uring-new"), Verdict::kOverblock);  // no skip path: the control's overblock
  j.spawner.on_exec = writes_path();
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/uring-new"), Verdict::kEscape);
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/uring-new"), Verdict::kPass);
}

// fs-meta: the fake sandbox sets the xattr where --path says, as the probe's setxattr does; the
// content stays as it was, so only the snapshot's xattrs can tell.
ExecScript sets_xattr() {
  return [](const SpawnRequest& r, const LaunchSpec&) {
    const std::string p = arg(r, "--path");
    if (::setxattr(p.c_str(), "user.breakout", "breakout\n", 9, 0) != 0)
      throw std::runtime_error("setxattr " + p + ": " + std::strerror(errno));
    return exited(0);
  };
}

TEST_F(FsChange, FsMetaIsJudgedByTheXattrsOfTheSnapshot) {
  const Attempt a = attempt("fs-meta", {"--op", "setxattr", "--path", "{target}"});
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/existing.txt"), Verdict::kPass);
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/existing.txt"), Verdict::kOverblock);  // the control not done
  j.spawner.on_exec = sets_xattr();
  const AttemptRecord escaped = j.run(a, ws, "fs:sibling/existing.txt");
  EXPECT_VERDICT(escaped, Verdict::kEscape);
  EXPECT_EQ(escaped.evidence["changes_outside_writable_roots"][0]["fields"], "xattr:user.breakout") << escaped.evidence;
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/existing.txt"), Verdict::kPass);
}

// cwd-write: the relative name lands in the cwd the spawner was asked for (its request).
ExecScript writes_in_cwd() {
  return [](const SpawnRequest& r, const LaunchSpec&) {
    write_text(fs::path(r.cwd) / arg(r, "--path"), "relative\n");
    return exited(0);
  };
}

TEST_F(FsChange, CwdWriteFromACwdOutsideTheRootsIsAnEscape) {
  const Attempt a = attempt("cwd-write", {"--op", "create", "--path", "breakout-cwd-{tag}"});
  j.spawner.on_exec = writes_in_cwd();
  const AttemptRecord r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["cwd_requested"].get<std::string>().rfind(j.ctx.work_root.string(), 0), 0u);
}

TEST_F(FsChange, CwdWritePassesWhenTheDeniedCwdStaysUntouchedAndTheControlWrites) {
  const Attempt a = attempt("cwd-write", {"--op", "create", "--path", "breakout-cwd-{tag}"});
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling"), Verdict::kPass);
  j.spawner.on_exec = writes_in_cwd();
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/cwd"), Verdict::kPass);
}

TEST_F(FsChange, CwdWriteInTheProcSelfCwdFormIsASkipAndRunsNothing) {
  const Attempt a = attempt("cwd-write", {"--op", "create", "--path", "breakout-cwd-{tag}"}, "proc-self-cwd");
  j.spawner.on_exec = writes_in_cwd();
  const AttemptRecord r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_EQ(j.spawner.requests().size(), 0u);
}

// syscall-abi-write: N/A only where the harness's own host check finds the ABI missing.
TEST_F(FsChange, SyscallAbiWriteIsJudgedByTheSnapshotAndNotApplicableWhereTheHostLacksTheAbi) {
  const Attempt a = attempt("syscall-abi-write", {"--abi", "{param}", "--path", "{target}"}, "x32");
  j.spawner.on_exec = writes_path();
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling/abi-x32-new"), Verdict::kEscape);  // a write is judged whatever the host
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return killed_by(31); };  // SIGSYS
  const AttemptRecord denied = j.run(a, ws, "fs:sibling/abi-x32-new");
  if (syscall_abi_unavailable("x32")) {
    EXPECT_VERDICT(denied, Verdict::kSkip);
  } else {
    EXPECT_VERDICT(denied, Verdict::kPass);
  }
}

}  // namespace
}  // namespace breakout::judges
