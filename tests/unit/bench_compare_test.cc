// Unit tests of the bench compare (verdicts, thresholds, sample floor), the scheduler, the JSON and the history tables.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "harness/bench/bench_doc.h"
#include "harness/bench/bench_run.h"
#include "harness/bench/compare.h"
#include "harness/core/error.h"
#include "harness/history/bench_history.h"

namespace breakout::bench {
namespace {

namespace fs = std::filesystem;

// A figure whose repetitions are `base` scaled by `factor` (+ a small deterministic wobble).
Figure figure(const std::string& name, const std::string& via, int reps, double base, double factor) {
  Figure f;
  f.name = name, f.kind = "spawn", f.via = via;
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    const double v = base * factor * (1 + 0.01 * ((i * 7) % 5 - 2));  // +-2 %
    f.repetition_ms.push_back(v);
    samples.push_back(v);
  }
  f.ms = summarize(samples);
  f.schedule.repetitions = reps;
  return f;
}

BenchDoc doc(const std::string& id, std::vector<Figure> figures) {
  BenchDoc d;
  d.info.run_id = id;
  d.info.spawner = "fixture";
  d.figures = std::move(figures);
  return d;
}

const FigureComparison& find(const Comparison& c, const std::string& name) {
  for (const auto& f : c.figures)
    if (f.name == name) return f;
  throw std::runtime_error("no figure " + name);
}

TEST(BenchCompare, FlagsATwiceSlowerSpawnerWithItsSize) {
  const auto c = compare_bench(doc("a", {figure("spawn/fixture", "fixture", 9, 5, 1)}),
                               doc("b", {figure("spawn/fixture", "fixture", 9, 5, 2)}), {});
  const auto& f = find(c, "spawn/fixture");
  EXPECT_TRUE(f.regression);
  EXPECT_EQ(f.verdict, "slower");
  EXPECT_NEAR(f.ratio, 2.0, 1e-9);
  ASSERT_TRUE(f.p_value.has_value());
  EXPECT_LT(*f.p_value, 0.001);
  EXPECT_TRUE(c.regression());
  EXPECT_EQ(c.gate_status(), 4);
  EXPECT_TRUE(comparison_json(c)["regression"].get<bool>());
}

TEST(BenchCompare, IdenticalRerunIsNotFlagged) {
  const auto c = compare_bench(doc("a", {figure("spawn/fixture", "fixture", 9, 5, 1)}),
                               doc("b", {figure("spawn/fixture", "fixture", 9, 5, 1)}), {});
  const auto& f = find(c, "spawn/fixture");
  EXPECT_FALSE(f.regression);
  EXPECT_EQ(f.verdict, "no significant change");
  EXPECT_EQ(c.gate_status(), 0);
}

TEST(BenchCompare, FewerThanNineRepetitionsNeverFlag) {
  for (int reps : {1, 5, 8}) {
    const auto c = compare_bench(doc("a", {figure("spawn/fixture", "fixture", 9, 5, 1)}),
                                 doc("b", {figure("spawn/fixture", "fixture", reps, 5, 10)}), {});
    const auto& f = find(c, "spawn/fixture");
    EXPECT_FALSE(f.regression) << reps;
    EXPECT_FALSE(f.p_value.has_value());
    EXPECT_EQ(f.note, "not enough samples (n < 9): no verdict");
    EXPECT_NEAR(f.ratio, 10, 0.5);  // the size is still reported
  }
}

TEST(BenchCompare, SmallSignificantShiftBelowThresholdDoesNotGate) {
  const auto base = doc("a", {figure("spawn/fixture", "fixture", 12, 5, 1)});
  const auto now = doc("b", {figure("spawn/fixture", "fixture", 12, 5, 1.06)});
  const auto& f = find(compare_bench(base, now, {}), "spawn/fixture");
  EXPECT_EQ(f.verdict, "slower");
  EXPECT_FALSE(f.regression);
  CompareOptions strict;
  strict.min_change = 0.0;
  EXPECT_TRUE(find(compare_bench(base, now, strict), "spawn/fixture").regression);
}

TEST(BenchCompare, RawFloorAndFasterNeverGate) {
  const auto c = compare_bench(
      doc("a", {figure("spawn/raw", "raw", 9, 1, 1), figure("spawn/none", "none", 9, 2, 1)}),
      doc("b", {figure("spawn/raw", "raw", 9, 1, 3), figure("spawn/none", "none", 9, 2, 0.5)}), {});
  EXPECT_EQ(find(c, "spawn/raw").verdict, "slower");
  EXPECT_FALSE(find(c, "spawn/raw").regression);
  EXPECT_EQ(find(c, "spawn/none").verdict, "faster");
  EXPECT_FALSE(c.regression());
}

TEST(BenchCompare, UnmatchedAndFailedFiguresAreNotCompared) {
  Figure failed = figure("spawn/bwrap", "bwrap", 9, 3, 1);
  failed.status = "error";
  const auto c = compare_bench(doc("a", {figure("spawn/gone", "x", 9, 1, 1), figure("spawn/bwrap", "bwrap", 9, 3, 1)}),
                               doc("b", {failed, figure("spawn/new", "y", 9, 1, 1)}), {});
  EXPECT_EQ(find(c, "spawn/gone").note, "only in base");
  EXPECT_EQ(find(c, "spawn/new").note, "only in new");
  EXPECT_EQ(find(c, "spawn/bwrap").verdict, "not compared");
  EXPECT_FALSE(c.regression());
}

TEST(BenchSchedule, MicrosecondsGetManyIterations) {
  Settings s;  // 0.5 s per repetition, 9 repetitions, 120 s budget
  const Schedule sch = schedule_for(0.001, 120, s);
  EXPECT_EQ(sch.repetitions, 9);
  EXPECT_EQ(sch.iterations, 500);
  EXPECT_TRUE(sch.note.empty());
}

TEST(BenchSchedule, BudgetShortensRepetitionsFirst) {
  Settings s;
  s.budget_s = 1;
  const Schedule sch = schedule_for(0.01, 0.9, s);  // 9 x 50 spawns would take 4.5 s
  EXPECT_EQ(sch.repetitions, 9);
  EXPECT_EQ(sch.iterations, 10);
  EXPECT_FALSE(sch.note.empty());
}

TEST(BenchSchedule, ThirtySecondSpawnerGetsAFewHonestSamples) {
  Settings s;  // budget 120 s; calibration took 30 s
  const Schedule sch = schedule_for(30, 90, s);
  EXPECT_EQ(sch.iterations, 1);
  EXPECT_EQ(sch.repetitions, 3);
  EXPECT_NE(sch.note.find("3 of 9 repetitions"), std::string::npos);
  // Even with no budget left: one repetition of one spawn, never zero.
  EXPECT_EQ(schedule_for(30, 0, s).repetitions, 1);
  EXPECT_EQ(schedule_for(30, 0, s).iterations, 1);
}

TEST(BenchDoc, JsonRoundTrip) {
  BenchDoc d = doc("r1", {figure("spawn/raw", "raw", 9, 1, 1), figure("pipe/none", "none", 9, 20, 1)});
  d.figures[1].kind = "pipe";
  d.figures[1].bytes_per_spawn = 16 << 20;
  d.figures[1].bytes_per_second = 8e8;
  Figure skipped;
  skipped.name = "spawn/firejail", skipped.kind = "spawn", skipped.via = "firejail";
  skipped.status = "skipped", skipped.reason = "unavailable: firejail not on PATH";
  d.figures.push_back(skipped);
  const auto j = bench_json(d);
  EXPECT_EQ(j["schema"], "breakout.bench/1");
  EXPECT_EQ(j["benchmarks"][2]["status"], "skipped");
  EXPECT_FALSE(j["benchmarks"][2].contains("p50"));
  const BenchDoc back = bench_from_json(j);
  ASSERT_EQ(back.figures.size(), 3u);
  EXPECT_EQ(back.figures[0].repetition_ms, d.figures[0].repetition_ms);
  EXPECT_DOUBLE_EQ(back.figures[1].bytes_per_second, 8e8);
  EXPECT_EQ(back.figures[2].reason, skipped.reason);
  EXPECT_THROW(bench_from_json({{"schema", "breakout.results/1"}}), Error);
}

TEST(BenchHistoryTables, RecordAndLoadBack) {
  const fs::path path = fs::temp_directory_path() / ("breakout-bench-history-" + std::to_string(::getpid()) + ".sqlite");
  fs::remove(path);
  {
    BenchDoc d = doc("20260101T000000Z-abc", {figure("spawn/raw", "raw", 9, 1, 1), figure("spawn/none", "none", 9, 1.2, 1)});
    d.figures[1].ratio_to_raw = 1.2;
    d.info.started_utc = "2026-01-01T00:00:00Z";
    BenchHistory h(path);
    h.record(d);
    const BenchDoc back = h.load(d.info.run_id);
    ASSERT_EQ(back.figures.size(), 2u);
    EXPECT_EQ(back.figures[1].repetition_ms, d.figures[1].repetition_ms);
    EXPECT_DOUBLE_EQ(back.figures[1].ratio_to_raw, 1.2);
    EXPECT_DOUBLE_EQ(back.figures[0].ratio_to_raw, 0);
    EXPECT_EQ(h.last_run_ids("fixture", 5), std::vector<std::string>{d.info.run_id});
    EXPECT_TRUE(h.has(d.info.run_id));
    EXPECT_FALSE(h.has("nope"));
    EXPECT_THROW(h.load("nope"), Error);
    // The latency trend of a spawner takes spawn/<spawner> of its runs only, oldest first.
    BenchDoc later = doc("20260102T000000Z-def", {figure("spawn/raw", "raw", 9, 1, 1), figure("spawn/fixture", "fixture", 9, 3, 1),
                                                 figure("spawn/none", "none", 9, 1.3, 1)});
    later.info.started_utc = "2026-01-02T00:00:00Z";
    later.figures[1].ratio_to_raw = 3;
    h.record(later);
    BenchDoc failed = doc("20260103T000000Z-ghi", {figure("spawn/raw", "raw", 9, 1, 1), figure("spawn/fixture", "fixture", 9, 9, 1)});
    failed.info.started_utc = "2026-01-03T00:00:00Z";
    failed.figures[1].status = "error";
    h.record(failed);
    const auto trend = h.latency_trend("fixture", 10);
    ASSERT_EQ(trend.size(), 1u);  // the first run has no spawn/fixture, the third failed it
    EXPECT_EQ(trend[0].run_id, later.info.run_id);
    EXPECT_NEAR(trend[0].p50_ms, later.figures[1].ms.p50, 1e-9);
    EXPECT_DOUBLE_EQ(trend[0].ratio_to_raw, 3);
    EXPECT_TRUE(h.latency_trend("none", 10).empty());  // spawn/none of a fixture run is not none's trend
    // The compare of a run with itself from the history: no regression.
    EXPECT_FALSE(compare_bench(back, d, {}).regression());
  }
  fs::remove(path);
  fs::remove(path.string() + "-wal");
  fs::remove(path.string() + "-shm");
}

}  // namespace
}  // namespace breakout::bench
