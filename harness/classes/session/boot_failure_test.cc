// The boot-failure judge of classes/session/boot_failure.cc: a boot that must be refused (a
// writable root that does not exist) changes nothing on the host, and the same boot without it
// works (the control). Through run_attempt with a fake spawner whose boot may refuse.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

bool asks_missing_root(const SpawnRequest& r) {
  for (const auto& w : r.resolved.writable)
    if (!fs::exists(w)) return true;
  return false;
}

class BootFailure : public ::testing::Test {
 protected:
  BootFailure() { j.spawner.sessions = true; }
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("boot-failure", {"--code", "0"});
};

TEST_F(BootFailure, ARefusedBootThatLeftAGrantBehindIsAnEscape) {
  j.spawner.refuse_boot = [](const SpawnRequest& r) -> std::optional<std::string> {
    if (!asks_missing_root(r)) return std::nullopt;
    fs::permissions(r.roots.home, fs::perms::others_write, fs::perm_options::add);  // granted before the check
    return "writable root does not exist";
  };
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_NE(r.reason.find("refused boot left the host changed"), std::string::npos) << r.reason;
}

TEST_F(BootFailure, ACleanRefusalIsAPassAndTheSameBootWithoutTheMissingRootWorks) {
  j.spawner.refuse_boot = [](const SpawnRequest& r) -> std::optional<std::string> {
    if (asks_missing_root(r)) return "writable root does not exist";
    return std::nullopt;
  };
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kPass);
  EXPECT_EQ(r.evidence["control_boot"], "ok");
  EXPECT_EQ(j.spawner.opens(), 2);
}

TEST_F(BootFailure, ARefusalOfEveryBootProvesNothing) {
  // No skip path in this judge: a control boot that fails too is the error case.
  j.spawner.refuse_boot = [](const SpawnRequest&) -> std::optional<std::string> { return "cannot boot at all"; };
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("failed too"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
