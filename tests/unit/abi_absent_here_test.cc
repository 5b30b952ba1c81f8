// abi_absent_here() and probe_fate(): a syscall ABI the host lacks makes the attempt N/A whatever the sandbox answered; where the host has it, nothing is excused.
#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "harness/attempt/excuse.h"

namespace breakout {
namespace {

constexpr char kHostLacksX32[] = "x32 syscalls return ENOSYS on this host: the kernel has no x32 ABI (CONFIG_X86_X32_ABI=n)";

LaunchResult exited(int code, std::string out = "") {
  LaunchResult r;
  r.started = r.exited = true;
  r.exit_code = code;
  r.out = std::move(out);
  return r;
}

LaunchResult killed(int sig) {
  LaunchResult r;
  r.started = true;
  r.term_signal = sig;
  return r;
}

std::string report(const std::string& state, const std::string& reason) {
  return "BREAKOUT-REPORT {\"probe\":\"syscall-abi\",\"ok\":false,\"abi_state\":\"" + state + "\",\"abi_reason\":\"" +
         reason + "\"}\n";
}

TEST(AbiAbsentHere, EverySandboxAnswerIsNotApplicableWhereTheHostLacksTheAbi) {
  const LaunchResult answers[] = {
      exited(1, report("blocked", "the x32 ABI raised SIGSYS: a seccomp filter refuses this ABI")),  // srt
      exited(1, report("unavailable", "x32 syscalls return ENOSYS")),                                   // none, bwrap
      exited(1, report("blocked", "getpid returned EPERM")),
      killed(SIGSYS),  // SECCOMP_RET_KILL_PROCESS before the report
      killed(SIGKILL),
      exited(128 + SIGSYS),  // the same, seen through a shell
      exited(1, "garbage"),
  };
  for (const LaunchResult& run : answers) {
    const std::string fate = probe_fate(run, "abi");
    const auto na = abi_absent_here(Effect::kNotHappened, std::string(kHostLacksX32), fate);
    ASSERT_TRUE(na.has_value()) << fate;
    EXPECT_EQ(na->rfind("N/A: ", 0), 0u) << *na;
    EXPECT_NE(na->find("no x32 ABI"), std::string::npos) << "names the host's fact: " << *na;
    EXPECT_NE(na->find(fate), std::string::npos) << "shows the probe's fate: " << *na;
  }
}

TEST(AbiAbsentHere, TheProbesFateSaysHowItEnded) {
  const std::string sys = "signal " + std::to_string(SIGSYS) + " (SIGSYS)";
  EXPECT_EQ(probe_fate(killed(SIGSYS), "abi"), "killed by " + sys + ", no report");
  EXPECT_EQ(probe_fate(exited(128 + SIGSYS), "abi"), "exited " + std::to_string(128 + SIGSYS) + " (128 + " + sys + "), no report");
  EXPECT_EQ(probe_fate(exited(1, report("blocked", "raised SIGSYS")), "abi"), "reported abi_state blocked: raised SIGSYS");
  EXPECT_EQ(probe_fate(exited(1, "BREAKOUT-REPORT {\"ok\":false}\n"), "abi"), "exited 1, a report without abi_state");
  LaunchResult late = killed(SIGKILL);
  late.timed_out = true;
  EXPECT_EQ(probe_fate(late, "abi"), "timed out, no report");
}

TEST(AbiAbsentHere, TheProbesWordIsBounded) {
  const std::string fate = probe_fate(exited(1, report(std::string(500, 's'), std::string(5000, 'r'))), "abi");
  EXPECT_LT(fate.size(), 400u) << fate;
}

TEST(AbiAbsentHere, WhereTheHostHasTheAbiNothingIsExcused) {
  // A filter's SIGSYS or ENOSYS inside the sandbox is a block there: judged as usual.
  for (const LaunchResult& run : {exited(1, report("blocked", "SIGSYS")), exited(1, report("unavailable", "ENOSYS")),
                                  killed(SIGSYS)})
    EXPECT_FALSE(abi_absent_here(Effect::kNotHappened, std::nullopt, probe_fate(run, "abi")).has_value());
}

TEST(AbiAbsentHere, AChangeOnTheHostIsJudgedEvenWithoutTheAbi) {
  const std::string fate = probe_fate(exited(0), "abi");
  EXPECT_FALSE(abi_absent_here(Effect::kHappened, std::string(kHostLacksX32), fate).has_value());
  EXPECT_FALSE(abi_absent_here(Effect::kUnknown, std::string(kHostLacksX32), fate).has_value());
}

}  // namespace
}  // namespace breakout
