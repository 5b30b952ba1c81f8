// The protected-write judge of classes/fs_write/protected_write.cc: an agent's checkout planted in the
// workspace, a write at a deny_write path inside it judged by the snapshot; through run_attempt.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

// The probe fs-write --op append at --path; it also checks that the checkout was planted first.
ExecScript appends_path() {
  return [](const SpawnRequest& r, const LaunchSpec&) {
    EXPECT_TRUE(fs::is_regular_file(r.roots.workspace / ".git" / "HEAD")) << "the checkout is planted before the exec";
    append_text(arg(r, "--path"), "[core]\n\thooksPath = /tmp\n");
    return exited(0);
  };
}

class ProtectedWrite : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& prot = j.policy("workspace-protected");
  const Attempt a = attempt("protected-write", {"--op", "append", "--path", "{target}"});
};

TEST_F(ProtectedWrite, AnAppendToAProtectedFileInTheWorkspaceIsAnEscape) {
  j.spawner.on_exec = appends_path();
  const AttemptRecord r = j.run(a, prot, "fs:workspace/.git/config");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_NE(r.evidence["runs_later"].get<std::string>().find("git"), std::string::npos);
}

TEST_F(ProtectedWrite, AProtectedFileLeftAloneIsAPassAndItsDotlessTwinIsWritten) {
  EXPECT_VERDICT(j.run(a, prot, "fs:workspace/.git/config"), Verdict::kPass);
  j.spawner.on_exec = appends_path();
  const AttemptRecord control = j.run(a, prot, "fs:workspace/git/config");
  EXPECT_VERDICT(control, Verdict::kPass);
  EXPECT_EQ(control.evidence["runs_later"], "nothing: not a file a host program runs or obeys");
}

TEST_F(ProtectedWrite, ACaseVariantOnACaseSensitiveFileSystemIsASkip) {
  j.spawner.on_exec = appends_path();
  const AttemptRecord r = j.run(a, prot, "fs:workspace/.GIT/config");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("case-sensitive"), std::string::npos) << r.reason;
  EXPECT_EQ(j.spawner.requests().size(), 0u);
}

}  // namespace
}  // namespace breakout::judges
