// Verdict rules: escapes need outside evidence; a denial passes only with a passing control.
#include <gtest/gtest.h>

#include "harness/attempt/record.h"
#include "harness/model/verdict.h"
#include "harness/run/runner.h"

using namespace breakout;

TEST(Verdict, Table) {
  EXPECT_EQ(judge(Expected::kDenied, Effect::kHappened, "x", std::nullopt).verdict, Verdict::kEscape);
  EXPECT_EQ(judge(Expected::kDenied, Effect::kNotHappened, "x", std::nullopt).verdict, Verdict::kPass);
  EXPECT_EQ(judge(Expected::kAllowed, Effect::kHappened, "x", std::nullopt).verdict, Verdict::kPass);
  EXPECT_EQ(judge(Expected::kAllowed, Effect::kNotHappened, "x", std::nullopt).verdict, Verdict::kOverblock);
  EXPECT_EQ(judge(Expected::kHolds, Effect::kNotHappened, "x", std::nullopt).verdict, Verdict::kBroken);
  EXPECT_EQ(judge(Expected::kHolds, Effect::kHappened, "x", std::nullopt).verdict, Verdict::kPass);
  EXPECT_EQ(judge(Expected::kDenied, Effect::kUnknown, "x", std::nullopt).verdict, Verdict::kError);
}

TEST(Verdict, FailedInRunControlTurnsDenialIntoError) {
  EXPECT_EQ(judge(Expected::kDenied, Effect::kNotHappened, "x", std::string("never started")).verdict, Verdict::kError);
  EXPECT_EQ(judge(Expected::kDenied, Effect::kNotHappened, "x", std::string()).verdict, Verdict::kPass);
  // An escape stays an escape even when the control is in doubt.
  EXPECT_EQ(judge(Expected::kDenied, Effect::kHappened, "x", std::string("never started")).verdict, Verdict::kEscape);
}

namespace {
AttemptRecord verdict_rec(const std::string& id, const std::string& role, Verdict v) {
  AttemptRecord r;
  r.id = id;
  r.group = "g@p";
  r.role = role;
  r.verdict = v;
  return r;
}
}  // namespace

TEST(Verdict, SandboxThatBlocksEverythingNeverReadsAsPass) {
  std::vector<AttemptRecord> records = {verdict_rec("control", "allow", Verdict::kOverblock), verdict_rec("deny", "deny", Verdict::kPass)};
  apply_controls(records);
  EXPECT_EQ(records[1].verdict, Verdict::kError);
  EXPECT_NE(records[1].reason.find("control"), std::string::npos);
  EXPECT_EQ(records[1].controls, std::vector<std::string>{"control"});
}

TEST(Verdict, SkippedControlMeansUnverifiedDenial) {
  std::vector<AttemptRecord> records = {verdict_rec("control", "allow", Verdict::kSkip), verdict_rec("deny", "deny", Verdict::kPass)};
  apply_controls(records);
  EXPECT_EQ(records[1].verdict, Verdict::kError);
}

TEST(Verdict, PassingControlKeepsPass) {
  std::vector<AttemptRecord> records = {verdict_rec("control", "allow", Verdict::kPass), verdict_rec("deny", "deny", Verdict::kPass),
                                        verdict_rec("esc", "deny", Verdict::kEscape)};
  apply_controls(records);
  EXPECT_EQ(records[1].verdict, Verdict::kPass);
  EXPECT_EQ(records[2].verdict, Verdict::kEscape);
}

// A spawner's clear refusal (core/refusal.h): the host still decides.
TEST(Verdict, RefusalIsAVerdictTheHostConfirms) {
  const auto refused = [](Expected e, Effect f) { return judge_refused(e, f, "seen", "invalid: cwd outside"); };
  const Judgement deny = refused(Expected::kDenied, Effect::kNotHappened);
  EXPECT_EQ(deny.verdict, Verdict::kPass);
  EXPECT_EQ(deny.reason, "refused: nothing happened outside (invalid: cwd outside)");
  EXPECT_EQ(refused(Expected::kDenied, Effect::kUnknown).verdict, Verdict::kPass);  // the probe never ran
  // A refusal with a changed host is still an escape; a control that happened anyway passes.
  EXPECT_EQ(refused(Expected::kDenied, Effect::kHappened).verdict, Verdict::kEscape);
  EXPECT_EQ(refused(Expected::kAllowed, Effect::kHappened).verdict, Verdict::kPass);
  // A refused control stays an overblock; a refused contract is broken; informational stays skip.
  const Judgement control = refused(Expected::kAllowed, Effect::kNotHappened);
  EXPECT_EQ(control.verdict, Verdict::kOverblock);
  EXPECT_NE(control.reason.find("invalid: cwd outside"), std::string::npos) << control.reason;
  EXPECT_EQ(refused(Expected::kAllowed, Effect::kUnknown).verdict, Verdict::kOverblock);
  EXPECT_EQ(refused(Expected::kHolds, Effect::kNotHappened).verdict, Verdict::kBroken);
  EXPECT_EQ(refused(Expected::kObserved, Effect::kUnknown).verdict, Verdict::kSkip);
}

TEST(Verdict, RefusedDenialStillNeedsItsControl) {  // a sandbox that refuses everything is no pass
  std::vector<AttemptRecord> records = {verdict_rec("control", "allow", Verdict::kOverblock), verdict_rec("deny", "deny", Verdict::kPass)};
  records[1].reason = judge_refused(Expected::kDenied, Effect::kNotHappened, "", "invalid: no").reason;
  apply_controls(records);
  EXPECT_EQ(records[1].verdict, Verdict::kError);
}
