// An interrupted run keeps what was judged, never more: controls still rule, and every file says "partial".
#include <gtest/gtest.h>

#include "harness/report/html_report.h"
#include "harness/report/merge.h"
#include "harness/report/results.h"
#include "harness/report/results_io.h"
#include "harness/run/runner.h"

using namespace breakout;

namespace {

AttemptRecord rec(const std::string& id, const std::string& group, const std::string& role, Verdict v) {
  AttemptRecord r;
  r.id = id;
  r.group = group;
  r.role = role;
  r.verdict = v;
  r.reason = "r";
  return r;
}

std::vector<std::string> ids(const std::vector<AttemptRecord>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) out.push_back(r.id);
  return out;
}

}  // namespace

TEST(InterruptedRun, KeepsOnlyJudgedAndDropsPassesWhoseControlDidNotRun) {
  std::vector<AttemptRecord> records = {
      rec("a-ctl", "a", "allow", Verdict::kPass),   rec("a-deny", "a", "deny", Verdict::kPass),
      rec("b-ctl", "b", "allow", Verdict::kPass),   // not judged: b's passing denial proves nothing yet
      rec("b-deny", "b", "deny", Verdict::kPass),   rec("b-esc", "b", "deny", Verdict::kEscape),
      rec("c-deny", "c", "deny", Verdict::kPass),   rec("c-ctl", "c", "allow", Verdict::kOverblock),
      rec("d-deny", "d", "deny", Verdict::kPass),   // not judged itself
  };
  const std::vector<char> judged = {1, 1, 0, 1, 1, 1, 1, 0};
  const auto kept = settle_judged(records, judged);
  // b-deny would be pass without its control: absent. b-esc is an escape whatever the control says.
  EXPECT_EQ(ids(kept), (std::vector<std::string>{"a-ctl", "a-deny", "b-esc", "c-deny", "c-ctl"}));
  EXPECT_EQ(kept[1].verdict, Verdict::kPass);
  EXPECT_EQ(kept[3].verdict, Verdict::kError);  // its judged control failed: as in a full run
}

TEST(InterruptedRun, AllJudgedIsTheSameAsApplyControls) {
  std::vector<AttemptRecord> records = {rec("ctl", "g", "allow", Verdict::kSkip), rec("deny", "g", "deny", Verdict::kPass)};
  const auto kept = settle_judged(records, {1, 1});
  apply_controls(records);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].verdict, records[1].verdict);
  EXPECT_EQ(kept[1].reason, records[1].reason);
}

TEST(InterruptedRun, FilesSayPartialAndRoundTrip) {
  RunInfo info;
  info.suite = "default";
  info.spawner = "none";
  info.interrupted = true;
  info.planned = 5;
  const std::vector<AttemptRecord> records = {rec("x@p", "x@p", "deny", Verdict::kEscape),
                                              rec("y@p", "y@p", "allow", Verdict::kPass)};
  const auto j = results_json(info, records);
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_EQ(j["planned"], 5);
  EXPECT_EQ(j["exit_status"], 130);  // not 3: the run did not finish
  EXPECT_EQ(j["attempts"].size(), 2u);

  const std::string xml = junit_xml(info, records);
  EXPECT_NE(xml.find("interrupted: 2 of 5 executions judged"), std::string::npos) << xml;
  EXPECT_NE(xml.find("tests=\"3\""), std::string::npos);   // the two executions and the interruption
  EXPECT_NE(xml.find("errors=\"1\""), std::string::npos);  // which is an error: never green in CI

  std::ostringstream summary;
  print_summary(summary, info, records, "out");
  EXPECT_NE(summary.str().find("interrupted: 2 of 5 executions judged"), std::string::npos) << summary.str();

  const Results back = results_from_json(j);
  EXPECT_TRUE(back.info.interrupted);
  EXPECT_EQ(back.info.planned, 5u);
  ReportInput in;
  in.results = back;
  EXPECT_NE(html_report(in).find("interrupted: 2 of 5 executions judged"), std::string::npos);
  EXPECT_NE(markdown_summary(in).find("interrupted: 2 of 5 executions judged"), std::string::npos);
}

TEST(InterruptedRun, WholeRunSaysNothingAndOldFilesAreWhole) {
  RunInfo info;
  const std::vector<AttemptRecord> records = {rec("x@p", "x@p", "deny", Verdict::kPass)};
  const auto j = results_json(info, records);
  EXPECT_EQ(j["interrupted"], false);
  EXPECT_EQ(j["planned"], 1);
  EXPECT_EQ(junit_xml(info, records).find("interrupted"), std::string::npos);
  std::ostringstream summary;
  print_summary(summary, info, records, "out");
  EXPECT_EQ(summary.str().find("nterrupted"), std::string::npos);
  nlohmann::json old = j;
  old.erase("interrupted");
  old.erase("planned");
  const Results back = results_from_json(old);
  EXPECT_FALSE(back.info.interrupted);
  EXPECT_EQ(back.info.planned, 1u);
}

TEST(InterruptedRun, MergeOfAnInterruptedShardIsPartial) {
  Results a, b;
  a.info.suite = b.info.suite = "default";
  a.info.spawner = b.info.spawner = "none";
  a.info.shard = "1/2";
  b.info.shard = "2/2";
  a.records = {rec("x@p", "x@p", "deny", Verdict::kPass)};
  a.info.planned = 1;
  b.records = {rec("y@p", "y@p", "deny", Verdict::kPass)};
  b.info.planned = 4;
  b.info.interrupted = true;
  const Results m = merge_results({a, b}, "m");
  EXPECT_TRUE(m.info.interrupted);
  EXPECT_EQ(m.info.planned, 5u);
  b.info.interrupted = false;
  EXPECT_FALSE(merge_results({a, b}, "m").info.interrupted);
}
