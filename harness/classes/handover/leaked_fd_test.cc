// The fd-leak judge of classes/handover/leaked_fd.cc: fds of the target the caller leaks (a directory,
// a file, the harness's FIFO and socket); a write through one is seen on the host (snapshot, the
// harness's own stream readers, or a host file the probe named); through run_attempt. The fake
// sandbox writes through the objects the fds name (the spawn layer that would open them is not
// run here): the judge only reads where they point.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <set>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/core/sha256.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;
using Open = LaunchSpec::InheritedFd::Open;

std::string token_line(const std::string& nonce) {
  return "breakout fd-walk " + keyed_sha256_hex("breakout fd-walk", nonce) + "\n";
}

void write_to_stream(const LaunchSpec::InheritedFd& f, const std::string& line) {
  int fd = -1;
  if (f.as == Open::kAppend) {
    fd = ::open(f.path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
  } else {
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, f.path.c_str(), sizeof a.sun_path - 1);
    check(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0, "fake", "connect " + f.path);
  }
  check(fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()), "fake", "write " + f.path);
  ::close(fd);
}

// The probe fd-walk, through the fds of the kinds in `through` (the fd numbers leaked at).
ExecScript writes_through(std::set<int> through) {
  return [through](const SpawnRequest& r, const LaunchSpec& l) {
    const std::string tag = arg(r, "--name"), line = token_line(arg(r, "--nonce"));
    EXPECT_EQ(l.inherit_fds.size(), 4u);
    for (const auto& f : l.inherit_fds) {
      if (!through.count(f.number)) continue;
      if (f.as == Open::kDirectory) write_text(fs::path(f.path) / ("breakout-fd-" + tag), line);
      else if (f.number == 6) append_text(f.path, line);
      else write_to_stream(f, line);
    }
    return exited(0);
  };
}

class LeakedFd : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("fd-leak", {"--name", "{tag}", "--nonce", "{nonce}"});
};

TEST_F(LeakedFd, ACreateThroughTheLeakedDirectoryFdOutsideTheRootsIsAnEscape) {
  j.spawner.on_exec = writes_through({5});
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling"), Verdict::kEscape);
}

TEST_F(LeakedFd, ALineThroughTheLeakedPipeOrSocketIsAnEscape) {
  j.spawner.on_exec = writes_through({7});
  AttemptRecord r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["line_through_leaked_pipe"], true);
  j.spawner.on_exec = writes_through({8});
  r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["line_through_leaked_socket"], true);
}

TEST_F(LeakedFd, AHostFileTheProbeNamedOutsideTheTreeIsLookedAtAndCharged) {
  // An fd another program leaked, pointing outside the tree: the probe's list says where; the
  // host's file decides, and the judge removes the probe's entry again.
  const fs::path elsewhere = j.ctx.work_root / "leaked-by-someone-else";
  fs::create_directories(elsewhere);
  j.spawner.on_exec = [&](const SpawnRequest& r, const LaunchSpec&) {
    write_text(elsewhere / ("breakout-fd-" + arg(r, "--name")), "x\n");
    return exited(0, report_line({{"fds", {{{"fd", 9}, {"path", elsewhere.string()}, {"kind", "dir"}}}}}));
  };
  const AttemptRecord r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_TRUE(fs::is_empty(elsewhere));
}

TEST_F(LeakedFd, NothingWrittenThroughADeniedTargetIsAPassAndTheWorkspaceControlWrites) {
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling"), Verdict::kPass);
  j.spawner.on_exec = writes_through({5, 6, 7, 8});
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace"), Verdict::kPass);
}

TEST_F(LeakedFd, AControlThatWroteNothingIsAnOverblock) {
  // No skip path in this judge: the third case is the control's overblock.
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace"), Verdict::kOverblock);
}

}  // namespace
}  // namespace breakout::judges
