// form_applies(): a Windows path form the probe could not apply excuses "nothing happened" only when asked for.
#include <gtest/gtest.h>

#include "harness/attempt/excuse.h"

namespace breakout {
namespace {

constexpr char kUnavailableReport[] =
    "BREAKOUT-REPORT {\"probe\":\"fs-write\",\"ok\":false,\"form\":\"unc-localhost\","
    "\"form_state\":\"unavailable\",\"form_reason\":\"no SMB loopback\"}\n";

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
  explicit Case(std::vector<std::string> args) {
    attempt.args = std::move(args);
    ex.attempt = &attempt;
    run.started = run.exited = true;
    run.exit_code = 1;
    run.out = kUnavailableReport;
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

}  // namespace
}  // namespace breakout
