// Sharding, merge, diff/baseline and report escaping: the rules without running a sandbox.
#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/core/escape.h"
#include "harness/report/diff.h"
#include "harness/report/html_report.h"
#include "harness/report/merge.h"
#include "harness/run/shard.h"

using namespace breakout;

namespace {

AttemptRecord tool_rec(const std::string& id, Verdict v) {
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
  auto a = run("a", {tool_rec("x@p[1]", Verdict::kPass)}, "1/2");
  auto b = run("b", {tool_rec("y@p[1]", Verdict::kEscape)}, "2/2");
  const auto m = merge_results({b, a}, "m");
  ASSERT_EQ(m.records.size(), 2u);
  EXPECT_EQ(m.records[0].id, "x@p[1]");
  EXPECT_EQ(m.info.merged_from.size(), 2u);
  EXPECT_TRUE(m.info.shard.empty());
  auto c = run("c", {tool_rec("x@p[1]", Verdict::kPass)}, "2/2");
  EXPECT_THROW(merge_results({a, c}, "m"), Error);
  auto d = b;
  d.info.suite = "network";
  EXPECT_THROW(merge_results({a, d}, "m"), Error);
  auto e = b;
  e.info.shard = "2/3";
  EXPECT_THROW(merge_results({a, e}, "m"), Error);
}

TEST(Diff, NewFixedChangedAddedRemoved) {
  auto base = run("base", {tool_rec("a@p[1]", Verdict::kPass), tool_rec("b@p[1]", Verdict::kEscape), tool_rec("gone@p", Verdict::kPass)});
  auto now = run("new", {tool_rec("a@p[1]", Verdict::kEscape), tool_rec("b@p[1]", Verdict::kPass), tool_rec("new@p", Verdict::kError)});
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
  auto now = run("new", {tool_rec("a@p[1]", Verdict::kEscape), tool_rec("b@p[1]", Verdict::kPass)});
  const auto baseline = baseline_json(now);
  ASSERT_EQ(baseline["accepted"].size(), 1u);
  Diff d = diff_baseline(baseline, now, "b.json");
  EXPECT_EQ(d.gate_status(), 0);
  EXPECT_EQ(d.accepted.size(), 1u);
  auto worse = run("w", {tool_rec("a@p[1]", Verdict::kEscape), tool_rec("b@p[1]", Verdict::kOverblock)});
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
  auto r = tool_rec("x@p[1]", Verdict::kEscape);
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

TEST(ReportHtml, ReconSideBySideIsEscapedAndMarksDisagreements) {
  auto r = tool_rec("recon.confinement@p", Verdict::kEscape);
  r.probe = "recon";
  r.reason = "seen from the host, <b>shares</b>";
  r.evidence = {{"side_by_side", {{{"field", "/ns/net"}, {"inside", "<script>alert(1)</script>"}, {"outside", "net:[1]"}, {"agree", false}},
                                  {{"field", "/ns/mnt"}, {"inside", "mnt:[2]"}, {"outside", "mnt:[2]"}, {"agree", true}},
                                  "not a row", {{"agree", "<svg onload=x>"}}}},
                {"checks", {{{"outcome", "missing"}, {"promise", "<img src=x>"}, {"detail", 7}}}}};
  r.probe_report = {{"ns", {{"net", "<iframe>"}}}};
  ReportInput in;
  in.results = run("r", {r});
  const std::string html = html_report(in);
  for (const char* bad : {"<script", "<img", "<iframe", "<svg onload", "<b>shares"}) EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  EXPECT_NE(html.find("<table class=\"recon\">"), std::string::npos);
  EXPECT_NE(html.find("<td>NO</td>"), std::string::npos);   // the disagreeing row
  EXPECT_NE(html.find("<td>yes</td>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);  // shown as text
}

namespace {

ReportBench bench_run(const std::string& figure_name) {
  ReportBench b{"20260101T000000Z-abc", "bwrap", "2026-01-01T00:00:00Z", "history", {}};
  b.figures.push_back({"spawn/raw", "ok", "", 9, 0.7, 0.8, 1.1, 0.6, 1.5, 1.0, 0});
  b.figures.push_back({figure_name, "ok", "", 9, 20.5, 22, 30, 18, 41, 29.3, 0});
  b.figures.push_back({"pipe/bwrap", "ok", "", 9, 100, 120, 150, 90, 170, 0, 3e8});
  b.figures.push_back({"spawn/firejail", "skipped", "<b>firejail</b> not on PATH", 0, 0, 0, 0, 0, 0, 0, 0});
  return b;
}

}  // namespace

TEST(ReportHtml, BenchSectionShowsFiguresRatiosAndTrend) {
  ReportInput in;
  in.results = run("r", {tool_rec("x@p[1]", Verdict::kPass)});
  in.bench = bench_run("spawn/bwrap");
  in.latency_trend = {{"a", "2026-01-01", 20.5, 30, 29.3}, {"b", "2026-01-02", 25.0, 31, 30.1}};
  const std::string html = html_report(in);
  EXPECT_NE(html.find("class=\"bench-table\""), std::string::npos);
  EXPECT_NE(html.find("class=\"bench-chart\""), std::string::npos);
  EXPECT_NE(html.find("class=\"latency-trend\""), std::string::npos);
  EXPECT_NE(html.find("<td>29.30</td>"), std::string::npos);   // ratio to raw of spawn/bwrap
  EXPECT_NE(html.find("300.0 MB/s"), std::string::npos);       // pipe throughput, not a ratio
  EXPECT_NE(html.find("&lt;b&gt;firejail"), std::string::npos);  // a skip reason is text
  const std::string md = markdown_summary(in);
  EXPECT_NE(md.find("| spawn/bwrap | 9 | 20.500 | 30.000 | 29.30 |"), std::string::npos) << md;
}

TEST(ReportHtml, NoBenchSaysWhy) {
  ReportInput in;
  in.results = run("r", {tool_rec("x@p[1]", Verdict::kPass)});
  in.bench_note = "No bench run of bwrap in the history.";
  const std::string html = html_report(in);
  EXPECT_EQ(html.find("bench-table"), std::string::npos);
  EXPECT_NE(html.find("No bench run of bwrap in the history."), std::string::npos);
  EXPECT_EQ(markdown_summary(in).find("Spawn latency"), std::string::npos);
}

TEST(ReportHtml, HostileBenchNamesStayText) {
  ReportInput in;
  in.results = run("r", {tool_rec("x@p[1]", Verdict::kPass)});
  in.bench = bench_run("spawn/<script>alert(1)</script>");
  in.latency_trend = {{"<img src=x>", "t", 1, 2, 0}};
  const std::string html = html_report(in);
  for (const char* bad : {"<script", "<img", "<b>firejail"}) EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  EXPECT_EQ(markdown_summary(in).find("<script"), std::string::npos);
}

TEST(ReportReproduce, DriverRunsReproduceWithDriverNotSpawner) {
  RunInfo info;
  info.spawner = "driver:reference";
  info.spawner_arg = "--driver python3 /x/it's driver.py";
  info.suite = "default";
  EXPECT_EQ(reproduce_command(info, "a@p[1]"),
            "breakout run --driver 'python3 /x/it'\\''s driver.py' --suite 'default' --only 'a@p[1]'");
  info.spawner_arg = "/abs/profile.toml";
  info.real_host = true;
  EXPECT_EQ(reproduce_command(info, "a"), "breakout run --spawner '/abs/profile.toml' --suite 'default' --real-host --only 'a'");
}
