// technique_unavailable(): a job-escape technique the probe reports absent excuses a silent heartbeat only when asked for and no beat was written.
#include <gtest/gtest.h>

#include "harness/attempt/excuse.h"

namespace breakout {
namespace {

constexpr char kTechniqueUnavailableReport[] =
    "BREAKOUT-REPORT {\"probe\":\"spawn-escape\",\"ok\":false,\"technique\":\"schtasks\","
    "\"technique_state\":\"unavailable\",\"technique_reason\":\"IRegisteredTask::Run failed: 0x80004001\"}\n";

struct UnavailableCase {
  Attempt attempt;
  LaunchResult run;
  explicit UnavailableCase(std::string technique) {
    attempt.args = {"--technique", std::move(technique), "--heartbeat", "{heartbeat}"};
    run.started = run.exited = true;
    run.exit_code = 1;
    run.out = kTechniqueUnavailableReport;
  }
};

TEST(TechniqueUnavailable, AnAbsentMechanismWithNoBeatIsNotApplicable) {
  for (const char* t : {"wmi", "schtasks", "shellexecute"}) {
    UnavailableCase c(t);
    const auto why = technique_unavailable(c.attempt, 0, c.run);
    ASSERT_TRUE(why.has_value()) << t;
    EXPECT_NE(why->find(std::string("technique ") + t), std::string::npos) << "names the technique asked for";
    EXPECT_NE(why->find("0x80004001"), std::string::npos) << "carries the probe's reason";
  }
}

TEST(TechniqueUnavailable, ABeatIsJudgedWhateverTheProbeSays) {
  UnavailableCase c("wmi");
  EXPECT_FALSE(technique_unavailable(c.attempt, 1, c.run).has_value());
}

TEST(TechniqueUnavailable, OnlyTheIndirectTechniquesMayBeExcused) {
  // The report is the sandboxed side's word: a background or breakaway beater that never beat
  // stays a failed in-run control (error), never a skip.
  for (const char* t : {"background", "breakaway", "double-fork-setsid"}) {
    UnavailableCase c(t);
    EXPECT_FALSE(technique_unavailable(c.attempt, 0, c.run).has_value()) << t;
  }
}

TEST(TechniqueUnavailable, AStartedOrFailedTechniqueOrNoReportChangesNothing) {
  UnavailableCase c("schtasks");
  c.run.out = "BREAKOUT-REPORT {\"technique_state\":\"failed\",\"technique_reason\":\"0x80070005\"}\n";
  EXPECT_FALSE(technique_unavailable(c.attempt, 0, c.run).has_value()) << "a refusal is judged, not skipped";
  c.run.out = "garbage <b>not json";
  EXPECT_FALSE(technique_unavailable(c.attempt, 0, c.run).has_value());
}

}  // namespace
}  // namespace breakout
