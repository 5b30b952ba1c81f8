// The path-hijack judge of classes/handover/path_hijack.cc: stubs planted first on the caller's PATH
// mark where they ran; the snapshot decides. The fake sandbox runs `git` from the PATH it was
// handed, as an unconfined command would, so the harness's own stubs make the mark; through run_attempt.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

// The probe path-exec: `git --version` looked up on the exec's PATH, in the exec's cwd, unconfined
// (a shell's lookup, in the child: a relative PATH entry resolves against the exec's cwd).
ExecScript runs_git_from_path() {
  return [](const SpawnRequest& r, const LaunchSpec& l) {
    LaunchSpec spec;
    spec.argv = {"/bin/sh", "-c", "exec git --version"};
    spec.cwd = r.cwd;
    for (const auto& [k, v] : env_seen(r)) spec.env.push_back(k + "=" + v);
    spec.timeout = l.timeout;
    LaunchResult run = run_process(spec, nullptr, nullptr);
    EXPECT_TRUE(run.started) << run.start_error;
    return run;
  };
}

class PathHijack : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("path-hijack", {"--name", "git", "--arg", "--version"});
};

TEST_F(PathHijack, AStubThatRanUnconfinedAndMarkedOutsideIsAnEscape) {
  j.spawner.on_exec = runs_git_from_path();
  const AttemptRecord r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["stubs_that_ran_at_target"], nlohmann::json::array({"git"}));
  const auto overrides = j.spawner.requests().at(0).env_overrides;
  ASSERT_FALSE(overrides.empty());
  EXPECT_EQ(overrides.back().first, "PATH");
  EXPECT_NE(overrides.back().second.find("/workspace/.bin:"), std::string::npos) << overrides.back().second;
}

TEST_F(PathHijack, TheRelativeEntryFormResolvesAgainstTheExecsCwd) {
  const Attempt relative = attempt("path-hijack", {"--name", "git", "--arg", "--version"}, "relative");
  j.spawner.on_exec = runs_git_from_path();
  EXPECT_VERDICT(j.run(relative, ws, "fs:sibling"), Verdict::kEscape);
}

TEST_F(PathHijack, NoStubRunOutsideIsAPassAndTheWorkspaceControlMarks) {
  EXPECT_VERDICT(j.run(a, ws, "fs:sibling"), Verdict::kPass);  // the sandbox ran nothing outside
  j.spawner.on_exec = runs_git_from_path();
  const AttemptRecord control = j.run(a, ws, "fs:workspace/marks");
  EXPECT_VERDICT(control, Verdict::kPass);
  EXPECT_EQ(control.evidence["stubs_that_ran_at_target"], nlohmann::json::array({"git"}));
}

TEST_F(PathHijack, AControlWhoseStubNeverRanIsAnOverblock) {
  // No skip path in this judge: the third case is the control's overblock.
  EXPECT_VERDICT(j.run(a, ws, "fs:workspace/marks"), Verdict::kOverblock);
}

}  // namespace
}  // namespace breakout::judges
