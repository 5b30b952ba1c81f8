// The bind-alias-connect judge of classes/net/bind_alias.cc: the harness bind-mounts its
// listener's socket at a second name and the nonce received there decides (net-connect's judge).
// The mount needs root with CAP_SYS_ADMIN: without it the judge skips, and that skip is the case a
// non-root run covers; with it, the escape and pass cases run. Through run_attempt.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"
#include "tests/unit/judges/support/may_mount.h"

namespace breakout::judges {
namespace {

class BindAlias : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& none = j.policy("workspace-write");
  const Attempt a = attempt("bind-alias-connect", {"--target", "{target}", "--nonce", "{nonce}"});
};

TEST_F(BindAlias, WithoutMountRightsItIsASkipAndNothingRuns) {
  if (may_mount()) GTEST_SKIP() << "this process may mount (root): the escape and pass cases cover the judge";
  j.spawner.on_exec = sends_nonce();
  const AttemptRecord r = j.run(a, none, "net:unix-outside");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_EQ(j.spawner.requests().size(), 0u);
}

TEST_F(BindAlias, TheNonceThroughTheAliasOfAHostSocketIsAnEscape) {
  if (!may_mount()) GTEST_SKIP() << "bind mounts need root with CAP_SYS_ADMIN (the skip case covers this run)";
  j.spawner.on_exec = sends_nonce();
  const AttemptRecord r = j.run(a, none, "net:unix-outside");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["bind_alias"]["path"].get<std::string>().find("sibling/"), 0u);
}

TEST_F(BindAlias, NoNonceThroughTheAliasIsAPassAndTheWorkspaceAliasIsReached) {
  if (!may_mount()) GTEST_SKIP() << "bind mounts need root with CAP_SYS_ADMIN (the skip case covers this run)";
  EXPECT_VERDICT(j.run(a, none, "net:unix-outside"), Verdict::kPass);
  j.spawner.on_exec = sends_nonce();
  EXPECT_VERDICT(j.run(a, none, "net:unix-workspace"), Verdict::kPass);
}

}  // namespace
}  // namespace breakout::judges
