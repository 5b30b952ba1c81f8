// History: round trip of a run, and the trend query over 1,000 runs x 100 executions in under a second.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include <unistd.h>

#include "harness/core/error.h"
#include "harness/history/history.h"

using namespace breakout;
namespace fs = std::filesystem;

namespace {

struct TempDb {
  fs::path path = fs::temp_directory_path() / ("breakout-history-test-" + std::to_string(::getpid()) + ".sqlite");
  ~TempDb() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix, ec);
  }
};

RunInfo run_info(int i, const std::string& spawner) {
  RunInfo info;
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "2026-%02d-%02dT%02d:%02d:00Z", 1 + i / 600 % 12, 1 + i / 24 % 25, i % 24,
                i % 60);
  info.run_id = "run-" + std::to_string(i);
  info.suite = "default";
  info.spawner = spawner;
  info.policies = {"workspace-write", "network-full"};
  info.started_utc = info.finished_utc = stamp;
  info.commit = "abc123";
  return info;
}

std::vector<AttemptRecord> executions(int run, int n) {
  std::vector<AttemptRecord> out;
  for (int k = 0; k < n; ++k) {
    AttemptRecord r;
    r.id = "attempt" + std::to_string(k) + "@policy[fs:x]";
    r.klass = "fs-write";
    r.policy = "policy";
    r.verdict = (k + run) % 17 == 0 ? Verdict::kEscape : Verdict::kPass;
    r.duration_ms = 10 + k;
    r.exit["spawn_ms"] = 4.0 + k % 5;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

TEST(History, RecordsAndLoadsARun) {
  TempDb db;
  History h(db.path);
  auto recs = executions(0, 5);
  h.record(run_info(0, "bwrap"), recs);
  const auto runs = h.last_runs(10);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].executions, 5);
  EXPECT_EQ(runs[0].summary.at("escape"), 1);
  EXPECT_EQ(runs[0].commit, "abc123");
  const Results r = h.load("run-0");
  ASSERT_EQ(r.records.size(), 5u);
  EXPECT_EQ(r.records[0].verdict, Verdict::kEscape);
  EXPECT_EQ(r.records[0].exit["spawn_ms"].get<double>(), 4.0);
  EXPECT_EQ(r.info.policies.size(), 2u);
  EXPECT_THROW(h.load("no-such-run"), Error);
}

TEST(History, TrendOverAThousandRunsIsFast) {
  TempDb db;
  {
    History h(db.path);
    for (int i = 0; i < 1000; ++i) h.record(run_info(i, i % 2 ? "bwrap" : "firejail"), executions(i, 100));
  }
  History h(db.path);  // a fresh connection, as `breakout history` / `report` would open it
  const auto t0 = std::chrono::steady_clock::now();
  const auto trend = h.escape_trend("bwrap", 1000);
  const auto all = h.escape_trend("", 1000);
  const auto runs = h.last_runs(1000);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("trend_query_seconds", std::to_string(secs));
  std::printf("trend queries over 1000 runs x 100 executions: %.4f s\n", secs);
  EXPECT_LT(secs, 1.0);
  ASSERT_EQ(trend.size(), 500u);
  ASSERT_EQ(all.size(), 1000u);
  ASSERT_EQ(runs.size(), 1000u);
  EXPECT_LE(trend.front().started, trend.back().started);  // oldest first
  int expected = 0;
  for (const auto& r : executions(1, 100)) expected += r.verdict == Verdict::kEscape;
  for (const auto& p : trend)
    if (p.run_id == "run-1") {
      EXPECT_EQ(p.escapes, expected);
    }
  EXPECT_EQ(trend.front().executions, 100);
}

namespace breakout {
namespace {

TEST(ChangedVerdicts, ListsEachChangeAndWhatAppearedOrWent) {
  std::size_t total = 0;
  const auto c = changed_verdicts({{"a", "pass"}, {"b", "pass"}, {"gone", "skip"}},
                                  {{"a", "pass"}, {"b", "escape"}, {"new", "pass"}}, &total);
  EXPECT_EQ(total, 3u);
  EXPECT_EQ(c, (std::vector<std::string>{"b: pass -> escape", "new: absent -> pass", "gone: skip -> absent"}));
  std::map<std::string, std::string> before, after;
  for (int i = 0; i < 30; ++i) before["x" + std::to_string(i)] = "pass", after["x" + std::to_string(i)] = "error";
  EXPECT_EQ(changed_verdicts(before, after, &total).size(), kMaxChangedShown);
  EXPECT_EQ(total, 30u);
  EXPECT_TRUE(changed_verdicts(before, before, &total).empty());
  EXPECT_EQ(total, 0u);
}

}  // namespace
}  // namespace breakout
