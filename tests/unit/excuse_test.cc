// The probe's "unavailable here" excuses (attempt/excuse.h): a Windows path form (form_applies), a route through the
// other operating system (route_applies) or a launch path (launch_applies) excuses "nothing happened" only when the
// attempt asked for it (and, for a route, when the host agrees); a change is always judged.
#include <gtest/gtest.h>

#include "harness/attempt/excuse.h"

namespace breakout {
namespace {

constexpr char kUnavailableReport[] =
    "BREAKOUT-REPORT {\"probe\":\"fs-write\",\"ok\":false,\"form\":\"unc-localhost\","
    "\"form_state\":\"unavailable\",\"form_reason\":\"no SMB loopback\"}\n";
constexpr char kRouteUnavailable[] =
    "BREAKOUT-REPORT {\"probe\":\"fs-write\",\"ok\":false,\"route\":\"wsl\","
    "\"route_state\":\"unavailable\",\"route_reason\":\"no C:\\\\windows\\\\system32\\\\wsl.exe (error 2)\"}\n";
constexpr char kLaunchUnavailable[] =
    "BREAKOUT-REPORT {\"probe\":\"net-connect\",\"ok\":false,\"launch\":\"wmi\","
    "\"launch_state\":\"unavailable\",\"launch_reason\":\"CoCreateInstance(WbemLocator) failed: 0x80040154\"}\n";
const std::optional<std::string> kHostHasNone = std::string("the host has no System32\\wsl.exe");

Observation not_happened() {
  Observation o;
  o.effect = Effect::kNotHappened;
  o.summary = "nothing changed";
  return o;
}

struct Case {
  Attempt attempt;
  Execution ex;
  LaunchResult run;
  explicit Case(std::vector<std::string> args, const char* report = kUnavailableReport) {
    attempt.args = std::move(args);
    ex.attempt = &attempt;
    run.started = run.exited = true;
    run.exit_code = 1;
    run.out = report;
  }
};

TEST(FormApplies, UnavailableFormWithNothingHappenedIsNotApplicable) {
  Case c({"--op", "create", "--path", "{target}", "--form", "unc-localhost"});
  const Observation o = form_applies(not_happened(), c.ex, c.run);
  ASSERT_TRUE(o.not_applicable.has_value());
  EXPECT_NE(o.not_applicable->find("unc-localhost"), std::string::npos);
  EXPECT_NE(o.not_applicable->find("no SMB loopback"), std::string::npos);
}

TEST(FormApplies, AnAttemptWithoutFormIsNeverExcusedByTheProbesWord) {
  // The report is the sandboxed side's: claiming "unavailable" unasked must not turn an overblocked control
  // (or a refused deny) into a skip.
  Case c({"--op", "create", "--path", "{target}"});
  EXPECT_FALSE(form_applies(not_happened(), c.ex, c.run).not_applicable.has_value());
}

TEST(FormApplies, SomethingThatHappenedIsJudgedEvenWhenTheFormIsUnavailable) {
  Case c({"--op", "create", "--path", "{target}", "--form", "unc-localhost"});
  Observation happened = not_happened();
  happened.effect = Effect::kHappened;
  EXPECT_FALSE(form_applies(happened, c.ex, c.run).not_applicable.has_value());
}

TEST(FormApplies, AnAvailableFormOrNoReportChangesNothing) {
  Case c({"--form", "verbatim"});
  c.run.out = "BREAKOUT-REPORT {\"form\":\"verbatim\",\"form_state\":\"applied\"}\n";
  EXPECT_FALSE(form_applies(not_happened(), c.ex, c.run).not_applicable.has_value());
  c.run.out = "garbage <b>not json";
  EXPECT_FALSE(form_applies(not_happened(), c.ex, c.run).not_applicable.has_value());
}

TEST(RouteApplies, AnAbsentRouteTheHostConfirmsWithNothingHappenedIsNotApplicable) {
  for (const char* route : {"wsl", "win-interop"}) {
    Case c({"--op", "append", "--via", route, "--path", "{target}"}, kRouteUnavailable);
    const Observation o = route_applies(not_happened(), c.ex, c.run, kHostHasNone);
    ASSERT_TRUE(o.not_applicable.has_value()) << route;
    EXPECT_NE(o.not_applicable->find(std::string("route ") + route), std::string::npos) << "names the route asked for";
    EXPECT_NE(o.not_applicable->find("wsl.exe (error 2)"), std::string::npos) << "carries the probe's reason";
    EXPECT_NE(o.not_applicable->find("the host has no"), std::string::npos) << "carries the host's reason";
  }
}

TEST(RouteApplies, TheProbesWordAloneIsNotEnoughWhereTheHostHasTheRoute) {
  // A sandbox that hides wsl.exe or /proc/sys/fs/binfmt_misc from the probe on a host that has the route:
  // judged (the deny passes, the control is an overblock), never a skip.
  Case c({"--op", "append", "--via", "wsl", "--path", "{target}"}, kRouteUnavailable);
  EXPECT_FALSE(route_applies(not_happened(), c.ex, c.run, std::nullopt).not_applicable.has_value());
}

TEST(RouteApplies, AnAttemptThatAskedForNoRouteIsNeverExcused) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--op", "append", "--path", "{target}"},
                                        {"--op", "append", "--via", "symlink", "--link", "l", "--path", "{target}"}}) {
    Case c(args, kRouteUnavailable);
    EXPECT_FALSE(route_applies(not_happened(), c.ex, c.run, kHostHasNone).not_applicable.has_value());
  }
}

TEST(RouteApplies, AChangeIsJudgedWhateverTheProbeAndHostSay) {
  Case c({"--op", "append", "--via", "wsl", "--path", "{target}"}, kRouteUnavailable);
  Observation happened = not_happened();
  happened.effect = Effect::kHappened;
  EXPECT_FALSE(route_applies(happened, c.ex, c.run, kHostHasNone).not_applicable.has_value());
}

TEST(RouteApplies, AStartedOrFailedRouteOrNoReportChangesNothing) {
  Case c({"--op", "append", "--via", "wsl", "--path", "{target}"}, "BREAKOUT-REPORT {\"route_state\":\"started\"}\n");
  EXPECT_FALSE(route_applies(not_happened(), c.ex, c.run, kHostHasNone).not_applicable.has_value());
  c.run.out = "garbage <b>not json";
  EXPECT_FALSE(route_applies(not_happened(), c.ex, c.run, kHostHasNone).not_applicable.has_value());
}

TEST(LaunchApplies, OnlyAnAbsentWmiWithNoNonceReceivedIsNotApplicable) {
  Case wmi({"--target", "{target}", "--nonce", "{nonce}", "--launch", "wmi"}, kLaunchUnavailable);
  const Observation o = launch_applies(not_happened(), wmi.ex, wmi.run);
  ASSERT_TRUE(o.not_applicable.has_value());
  EXPECT_NE(o.not_applicable->find("0x80040154"), std::string::npos);
  Observation received = not_happened();
  received.effect = Effect::kHappened;
  EXPECT_FALSE(launch_applies(received, wmi.ex, wmi.run).not_applicable.has_value()) << "a nonce received is judged";
  // A CreateProcessW, ShellExecuteExW or cmd.exe that fails is the sandbox's answer; direct asks for no path.
  for (const char* how : {"create-process", "shellexecute", "cmd-start"}) {
    Case c({"--target", "{target}", "--nonce", "{nonce}", "--launch", how}, kLaunchUnavailable);
    EXPECT_FALSE(launch_applies(not_happened(), c.ex, c.run).not_applicable.has_value()) << how;
  }
  Case direct({"--target", "{target}", "--nonce", "{nonce}"}, kLaunchUnavailable);
  EXPECT_FALSE(launch_applies(not_happened(), direct.ex, direct.run).not_applicable.has_value());
}

}  // namespace
}  // namespace breakout
