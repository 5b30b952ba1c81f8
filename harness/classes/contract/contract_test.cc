// The contract judges of classes/contract/contract.cc (exit-code, exit-signal, cwd, output-flood,
// no-timeout), driven through run_attempt. A contract has no denial, so no escape of its own: it
// holds (pass) or is broken; an escape is what the same execution did outside besides
// (collateral.h), which every contract run is judged for too.
#include <csignal>

#include <gtest/gtest.h>

#include "shared/flood_pattern.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

class Contract : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
};

TEST_F(Contract, ExitCodePropagatedHoldsAndAnotherIsBroken) {
  const Attempt a = attempt("exit-code", {"--code", "{param}"}, "42");
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) { return exited(std::stoi(arg(r, "--code"))); };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return exited(1); };  // a wrapper's own status
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kBroken);
  EXPECT_NE(r.reason.find("spawner reported exit 1"), std::string::npos) << r.reason;
}

TEST_F(Contract, AContractRunThatWritesOutsideTheRootsIsAnEscapeBesides) {
  const Attempt a = attempt("exit-code", {"--code", "{param}"}, "42");
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    write_text(r.roots.sibling / "collateral", "x\n");
    return exited(42);
  };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kEscape);
}

TEST_F(Contract, ExitSignalAsTheSignalOr128PlusItHoldsAndAnExitIsBroken) {
  const Attempt a = attempt("exit-signal", {"--signal", "{param}"}, "TERM");
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return killed_by(SIGTERM); };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return exited(128 + SIGTERM); };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return exited(0); };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kBroken);
}

TEST_F(Contract, CwdHonouredLeavesTheMarkerThereAndIgnoredIsBroken) {
  const Attempt a = attempt("cwd", {"--mark", "{tag}.mark"}, "sub dir");
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    write_text(fs::path(r.cwd) / arg(r, "--mark"), "");
    return exited(0);
  };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {  // ran in the workspace instead
    write_text(r.roots.workspace / arg(r, "--mark"), "");
    return exited(0);
  };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kBroken);
}

std::string flood(int stream, std::size_t n) {
  std::string s(n, '\0');
  fill_flood(stream, 0, s.data(), n);
  return s;
}

TEST_F(Contract, OutputFloodExactHoldsAndADroppedByteIsBroken) {
  const Attempt a = attempt("output-flood", {"--bytes", "{param}"}, "100000");
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec& l) {
    EXPECT_GE(l.max_capture, 100000u);  // the judge raised the capture bound in prepare()
    return exited(0, flood(1, 100000), flood(2, 100000));
  };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) {
    std::string out = flood(1, 100000);
    out.erase(5000, 1);
    return exited(0, out, flood(2, 100000));
  };
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kBroken);
  EXPECT_NE(r.reason.find("first mismatch at offset 5000"), std::string::npos) << r.reason;
}

TEST_F(Contract, NoTimeoutCompletedHoldsAndCutShortIsBroken) {
  Attempt a = attempt("no-timeout", {"--ms", "{param}", "--mark", "{mark}"}, "3000");
  a.timeout_override = true;  // timeout_ms = "none"
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec& l) {
    EXPECT_FALSE(r.timeout.has_value()) << "the caller asked for no timeout";
    EXPECT_GE(l.timeout->count(), 3 * 3000);  // the harness's own safety net only
    write_text(arg(r, "--mark"), "done\n");
    return exited(0);
  };
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return killed_by(SIGKILL); };  // a default timeout
  EXPECT_VERDICT(j.run(a, ws), Verdict::kBroken);
}

}  // namespace
}  // namespace breakout::judges
