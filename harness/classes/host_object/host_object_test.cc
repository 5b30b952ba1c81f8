// The host-object judge of classes/host_object/host_object.cc, on the host objects a unit test can make
// without root (ipc-reach's tmp-file and workspace-file: harness-owned files the probe may change or
// read), driven through run_attempt.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

// The probe's target, "file:<path>" (SharedFile's spec).
std::string file_of(const SpawnRequest& r) {
  const std::string t = arg(r, "--target");
  EXPECT_EQ(t.rfind("file:", 0), 0u) << t;
  return t.substr(5);
}

ExecScript overwrites_object() {
  return [](const SpawnRequest& r, const LaunchSpec&) {
    write_text(file_of(r), "changed by the fake sandbox\n");
    return exited(0);
  };
}

class HostObject : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("ipc-reach", {"--target", "{target}", "--nonce", "{nonce}"});
};

TEST_F(HostObject, AHostFileChangedIsAnEscape) {
  j.spawner.on_exec = overwrites_object();
  const AttemptRecord r = j.run(a, ws, "ipc:tmp-file");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["object_changed"], true);
}

TEST_F(HostObject, AHostFileUntouchedIsAPassAndTheWorkspaceTwinIsChanged) {
  EXPECT_VERDICT(j.run(a, ws, "ipc:tmp-file"), Verdict::kPass);
  j.spawner.on_exec = overwrites_object();
  EXPECT_VERDICT(j.run(a, ws, "ipc:workspace-file"), Verdict::kPass);
}

TEST_F(HostObject, AHostFileSecretReadWhereReadsDoNotDecideIsShownNotCharged) {
  // /tmp is the host's, but reading its shared file is no change and its token does not decide
  // (token_decides false): the judge says where it saw the secret; the verdict stays a pass.
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    std::ifstream in(file_of(r));
    std::stringstream s;
    s << in.rdbuf();
    return exited(0, s.str());
  };
  const AttemptRecord r = j.run(a, ws, "ipc:tmp-file");
  EXPECT_VERDICT(r, Verdict::kPass);
  EXPECT_NE(r.reason.find("secret seen in stdout"), std::string::npos) << r.reason;
}

TEST_F(HostObject, AnUntouchedControlIsAnOverblock) {
  // No skip path in this judge (an object unavailable here is skipped by the planner): the
  // third case is the control's overblock.
  EXPECT_VERDICT(j.run(a, ws, "ipc:workspace-file"), Verdict::kOverblock);
}

}  // namespace
}  // namespace breakout::judges
