// Sharding, merge, diff/baseline and report escaping: the rules without running a sandbox.
#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/report/diff.h"
#include "harness/report/escape.h"
#include "harness/report/html_report.h"
#include "harness/report/merge.h"
#include "harness/run/shard.h"

using namespace breakout;

namespace {

AttemptRecord rec(const std::string& id, Verdict v) {
  AttemptRecord r;
  r.id = id;
  r.group = id.substr(0, id.find('['));
  r.klass = "fs-write";
  r.policy = "p";
  r.verdict = v;
  r.reason = "because";
  return r;
}

Results run(const std::string& id, std::vector<AttemptRecord> recs, const std::string& shard = "") {
  Results r;
  r.info.run_id = id;
  r.info.suite = "default";
  r.info.spawner = "bwrap";
  r.info.policies = {"p"};
  r.info.shard = shard;
  r.records = std::move(recs);
  return r;
}

}  // namespace

TEST(Shard, ParseAndStableSplit) {
  EXPECT_EQ(parse_shard("2/4").index, 2);
  EXPECT_THROW(parse_shard("0/4"), Error);
  EXPECT_THROW(parse_shard("5/4"), Error);
  EXPECT_THROW(parse_shard("x"), Error);
  EXPECT_THROW(parse_shard("1/4x"), Error);
  // A fixed value: the split must never change between releases or machines.
  EXPECT_EQ(shard_of("fs.write.create@workspace-write", 4), shard_of("fs.write.create@workspace-write", 4));
  int seen[5] = {};
  for (int i = 0; i < 400; ++i) ++seen[shard_of("attempt" + std::to_string(i) + "@p", 4)];
  for (int k = 1; k <= 4; ++k) EXPECT_GT(seen[k], 60) << k;
}

TEST(Merge, RefusesOverlapAndOtherSuites) {
  auto a = run("a", {rec("x@p[1]", Verdict::kPass)}, "1/2");
  auto b = run("b", {rec("y@p[1]", Verdict::kEscape)}, "2/2");
  const auto m = merge_results({b, a}, "m");
  ASSERT_EQ(m.records.size(), 2u);
  EXPECT_EQ(m.records[0].id, "x@p[1]");
  EXPECT_EQ(m.info.merged_from.size(), 2u);
  EXPECT_TRUE(m.info.shard.empty());
  auto c = run("c", {rec("x@p[1]", Verdict::kPass)}, "2/2");
  EXPECT_THROW(merge_results({a, c}, "m"), Error);
  auto d = b;
  d.info.suite = "network";
  EXPECT_THROW(merge_results({a, d}, "m"), Error);
  auto e = b;
  e.info.shard = "2/3";
  EXPECT_THROW(merge_results({a, e}, "m"), Error);
}

TEST(Diff, NewFixedChangedAddedRemoved) {
  auto base = run("base", {rec("a@p[1]", Verdict::kPass), rec("b@p[1]", Verdict::kEscape), rec("gone@p", Verdict::kPass)});
  auto now = run("new", {rec("a@p[1]", Verdict::kEscape), rec("b@p[1]", Verdict::kPass), rec("new@p", Verdict::kError)});
  const Diff d = diff_runs(base, now);
  ASSERT_EQ(d.new_escapes.size(), 1u);
  EXPECT_EQ(d.new_escapes[0].id, "a@p[1]");
  ASSERT_EQ(d.fixed_escapes.size(), 1u);
  EXPECT_EQ(d.changed.size(), 2u);
  ASSERT_EQ(d.added.size(), 1u);
  ASSERT_EQ(d.removed.size(), 1u);
  EXPECT_EQ(d.new_failures.size(), 2u);  // the escape and the added error
  EXPECT_EQ(d.gate_status(), kDiffGateFails);
  EXPECT_EQ(diff_runs(now, now).gate_status(), 0);
}

TEST(Diff, BaselineAcceptsOnlyTheSameVerdict) {
  auto now = run("new", {rec("a@p[1]", Verdict::kEscape), rec("b@p[1]", Verdict::kPass)});
  const auto baseline = baseline_json(now);
  ASSERT_EQ(baseline["accepted"].size(), 1u);
  Diff d = diff_baseline(baseline, now, "b.json");
  EXPECT_EQ(d.gate_status(), 0);
  EXPECT_EQ(d.accepted.size(), 1u);
  auto worse = run("w", {rec("a@p[1]", Verdict::kEscape), rec("b@p[1]", Verdict::kOverblock)});
  d = diff_baseline(baseline, worse, "b.json");
  EXPECT_EQ(d.gate_status(), kDiffGateFails);
  ASSERT_EQ(d.new_failures.size(), 1u);
  EXPECT_EQ(d.new_failures[0].id, "b@p[1]");
}

TEST(ReportEscape, HtmlMarkdownShell) {
  EXPECT_EQ(html_escape("<script>&\"'\x1b"), "&lt;script&gt;&amp;&quot;&#39;\\x1b");
  const std::string md = markdown_escape("[x](http://e) <b>|`*");
  EXPECT_EQ(md.find('<'), std::string::npos);
  EXPECT_EQ(md.find("]("), std::string::npos);
  EXPECT_NE(md.find("\\|"), std::string::npos);
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

TEST(ReportHtml, HostileStringsNeverBecomeMarkup) {
  auto r = rec("x@p[1]", Verdict::kEscape);
  r.title = "<img src=x onerror=alert(1)>";
  r.reason = "</pre><script>alert(1)</script>";
  r.stdout_excerpt = "<script>alert(2)</script>";
  r.probe_report = {{"detail", "<iframe>"}};
  r.klass = "<b>class</b>";
  ReportInput in;
  in.results = run("r", {r});
  in.results.info.spawner = "<svg onload=alert(3)>";
  const std::string html = html_report(in);
  for (const char* bad : {"<script", "<img", "<iframe", "<svg onload", "<b>class"}) EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  EXPECT_NE(html.find("verdict-escape"), std::string::npos);
  const std::string md = markdown_summary(in);
  EXPECT_EQ(md.find("<script"), std::string::npos);
}
