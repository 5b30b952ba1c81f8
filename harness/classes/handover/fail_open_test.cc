// The fail-open judge of classes/handover/fail_open.cc: the spawner's enforcer cannot work (stubs
// first on PATH, or no user namespaces); a spawner that runs the command anyway lets its write
// outside through, and the snapshot decides; through run_attempt.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

// A spawner that looks its enforcer `bwrap` up on the exec's PATH; when the enforcer fails it
// either runs the command unconfined (`fails_open`) or refuses (exit 1, nothing runs).
ExecScript spawner_with_enforcer(bool fails_open) {
  return [fails_open](const SpawnRequest& r, const LaunchSpec& l) {
    bool enforcer_ok = !l.user_namespaces_off;
    if (enforcer_ok) {
      LaunchSpec spec;
      spec.argv = {"bwrap", "--version"};
      for (const auto& [k, v] : env_seen(r)) spec.env.push_back(k + "=" + v);
      spec.timeout = l.timeout;
      const LaunchResult bwrap = run_process(spec, nullptr, nullptr);
      enforcer_ok = bwrap.started && bwrap.exited && bwrap.exit_code == 0;
    }
    if (enforcer_ok || !fails_open) return exited(enforcer_ok ? 0 : 1, "", enforcer_ok ? "" : "bwrap failed\n");
    write_text(arg(r, "--path"), "unconfined\n");
    return exited(0);
  };
}

class FailOpen : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt stubs = attempt("fail-open", {"--op", "create", "--path", "{target}"}, "enforcer-path");
  const Attempt userns = attempt("fail-open", {"--op", "create", "--path", "{target}"}, "no-userns");
};

TEST_F(FailOpen, ASpawnerThatRunsUnconfinedWhenItsEnforcerFailsIsAnEscape) {
  j.spawner.on_exec = spawner_with_enforcer(true);
  const AttemptRecord r = j.run(stubs, ws, "fs:sibling/new-file");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["enforcer_stubs_first_on_path"].get<std::string>().find(j.ctx.work_root.string()), 0u);
  j.spawner.on_exec = spawner_with_enforcer(true);
  EXPECT_VERDICT(j.run(userns, ws, "fs:sibling/new-file"), Verdict::kEscape);
}

TEST_F(FailOpen, ASpawnerThatRefusesWhenItsEnforcerFailsIsAPassAndAWorkspaceWriteHappens) {
  j.spawner.on_exec = spawner_with_enforcer(false);
  EXPECT_VERDICT(j.run(stubs, ws, "fs:sibling/new-file"), Verdict::kPass);
  EXPECT_VERDICT(j.run(userns, ws, "fs:sibling/new-file"), Verdict::kPass);
  j.spawner.on_exec = spawner_with_enforcer(true);  // (the shipped control is fs.write.create's, controls_from)
  EXPECT_VERDICT(j.run(stubs, ws, "fs:workspace/new-file"), Verdict::kPass);
}

TEST_F(FailOpen, AnAllowedWriteThatNeverHappenedIsAnOverblock) {
  // No skip path in this judge: the third case is an allowed target's overblock.
  j.spawner.on_exec = spawner_with_enforcer(false);
  EXPECT_VERDICT(j.run(stubs, ws, "fs:workspace/new-file"), Verdict::kOverblock);
}

}  // namespace
}  // namespace breakout::judges
