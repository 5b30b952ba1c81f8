// The placeholders of a probe's arguments (attempt/scene.h probe_placeholders): what each expands
// to for an execution, in particular {root_pid}, which depends on the target (the harness's pid
// for what the host holds, `self` for the workspace socket: ipc.unix-alias.proc-root and its control).
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "harness/attempt/scene.h"
#include "harness/attempt/work_root.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"

namespace breakout {
namespace {

class PlaceholdersTest : public ::testing::Test {
 protected:
  PlaceholdersTest() : work_(random_hex(8)), nonce_(random_hex(16)), tree_(work_.path(), 0, nonce_) {
    attempt_.args = {"--target", "{target}", "--alias", "proc-root", "--root-pid", "{root_pid}"};
    attempt_.param = "p";
    ex_.attempt = &attempt_;
    io_.nonce = nonce_;
    io_.heartbeat = tree_.roots().workspace / "heartbeat";
    io_.mark = tree_.roots().workspace / "mark";
  }
  // The probe's argument `arg` as an execution aimed at `target` would get it.
  std::string expanded(const std::string& target, const std::string& arg) {
    ex_.target = parse_target(target);
    io_.target_spec = "unix:/somewhere";
    return substitute_placeholders(arg, probe_placeholders(ex_, tree_, io_));
  }

  WorkRoot work_;
  std::string nonce_;
  AttemptTree tree_;
  Attempt attempt_;
  Execution ex_;
  AttemptIo io_;
};

TEST_F(PlaceholdersTest, RootPidIsTheHarnessForWhatTheHostHolds) {
  const std::string self = std::to_string(::getpid());
  EXPECT_EQ(expanded("net:unix-outside", "{root_pid}"), self);
  EXPECT_EQ(expanded("net:ssh-agent", "/proc/{root_pid}/root"), "/proc/" + self + "/root");
  EXPECT_EQ(expanded("net:tcp4-loopback", "{root_pid}"), self);
  EXPECT_EQ(expanded("fs:sibling/x", "{root_pid}"), self);
}

TEST_F(PlaceholdersTest, RootPidIsTheProbesOwnForTheWorkspaceSocket) {
  // The control must reach its socket through the probe's own root: a sandbox with a pid
  // namespace of its own shows no harness pid, and the control would fail for that alone.
  EXPECT_EQ(expanded("net:unix-workspace", "{root_pid}"), "self");
}

TEST_F(PlaceholdersTest, TheOthersExpandAsDocumented) {
  EXPECT_EQ(expanded("net:unix-outside", "{target}"), "unix:/somewhere");
  EXPECT_EQ(expanded("net:unix-outside", "{nonce}"), nonce_);
  EXPECT_EQ(expanded("net:unix-outside", "{tag}"), nonce_.substr(0, 8));
  EXPECT_EQ(expanded("net:unix-outside", "{workspace}/x"), (tree_.roots().workspace / "x").string());
  EXPECT_EQ(expanded("net:unix-outside", "{param}"), "p");
  EXPECT_EQ(expanded("net:unix-outside", "{unknown}"), "{unknown}") << "left as written, never guessed";
}

}  // namespace
}  // namespace breakout
