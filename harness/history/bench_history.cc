// Schema and queries of the benchmark tables; one row per benchmark figure, keyed by its bench run.
#include "harness/history/bench_history.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "harness/core/error.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

// Separate from `runs` (history.cc): a bench run has no suite, verdicts or
// executions, and must not show up as a zero-escape point in escape trends.
constexpr const char* kBenchSchema = R"sql(
CREATE TABLE IF NOT EXISTS bench_runs (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  spawner TEXT NOT NULL, spawner_version TEXT, spawner_description TEXT, spawner_arg TEXT, policy TEXT, probe TEXT,
  breakout_version TEXT, git_commit TEXT, platform TEXT, kernel TEXT, host TEXT, cpus INTEGER,
  started TEXT NOT NULL, finished TEXT, wall_seconds REAL,
  min_time_s REAL, repetitions INTEGER, budget_s REAL, spawn_timeout_s REAL);
CREATE TABLE IF NOT EXISTS bench_figures (
  bench_run INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL, kind TEXT, via TEXT, status TEXT NOT NULL, reason TEXT,
  n INTEGER, iterations INTEGER, p50_ms REAL, p90_ms REAL, p99_ms REAL, min_ms REAL, max_ms REAL,
  mean_ms REAL, stddev_ms REAL, ratio_to_raw REAL, calibration_ms REAL,
  bytes_per_spawn INTEGER, bytes_per_second REAL,
  repetition_ms TEXT);  -- JSON array: what a later compare tests against
CREATE INDEX IF NOT EXISTS bench_runs_by_spawner_time ON bench_runs(spawner, started);
CREATE INDEX IF NOT EXISTS bench_figures_by_run ON bench_figures(bench_run);
)sql";

}  // namespace

BenchHistory::BenchHistory(const fs::path& path) : db_(path) {
  db_.exec(kBenchSchema);
}

void BenchHistory::record(const bench::BenchDoc& doc) {
  const bench::BenchInfo& i = doc.info;
  sql::Transaction tx(db_);
  sql::Stmt run(db_,
                "INSERT OR REPLACE INTO bench_runs (run_id, spawner, spawner_version, spawner_description, "
                "spawner_arg, policy, probe, breakout_version, git_commit, platform, kernel, host, cpus, started, "
                "finished, wall_seconds, min_time_s, repetitions, budget_s, spawn_timeout_s) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  run.bind(1, i.run_id).bind(2, i.spawner).bind(3, i.spawner_version).bind(4, i.spawner_description);
  run.bind(5, i.spawner_arg).bind(6, i.policy).bind(7, i.probe).bind(8, i.breakout_version).bind(9, i.commit);
  run.bind(10, i.platform).bind(11, i.kernel).bind(12, i.host).bind(13, i.cpus).bind(14, i.started_utc);
  run.bind(15, i.finished_utc).bind(16, i.wall_seconds).bind(17, i.settings.min_time_s);
  run.bind(18, i.settings.repetitions).bind(19, i.settings.budget_s).bind(20, i.settings.spawn_timeout_s);
  run.step();
  const std::int64_t row = db_.last_insert_rowid();
  sql::Stmt fig(db_,
                "INSERT INTO bench_figures (bench_run, name, kind, via, status, reason, n, iterations, p50_ms, "
                "p90_ms, p99_ms, min_ms, max_ms, mean_ms, stddev_ms, ratio_to_raw, calibration_ms, bytes_per_spawn, "
                "bytes_per_second, repetition_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& f : doc.figures) {
    fig.reset();
    fig.bind(1, row).bind(2, f.name).bind(3, f.kind).bind(4, f.via).bind(5, f.status).bind(6, f.reason);
    fig.bind(7, static_cast<std::int64_t>(f.ms.n)).bind(8, static_cast<std::int64_t>(f.schedule.iterations));
    fig.bind(9, f.ms.p50).bind(10, f.ms.p90).bind(11, f.ms.p99).bind(12, f.ms.min).bind(13, f.ms.max);
    fig.bind(14, f.ms.mean).bind(15, f.ms.stddev);
    if (f.ratio_to_raw > 0) fig.bind(16, f.ratio_to_raw);
    else fig.bind_null(16);
    fig.bind(17, f.calibration_ms).bind(18, static_cast<std::int64_t>(f.bytes_per_spawn));
    fig.bind(19, f.bytes_per_second).bind(20, nlohmann::json(f.repetition_ms).dump());
    fig.step();
  }
  tx.commit();
}

bench::BenchDoc BenchHistory::load(const std::string& run_id) {
  sql::Stmt q(db_,
              "SELECT id, spawner, spawner_version, spawner_description, spawner_arg, policy, probe, "
              "breakout_version, git_commit, platform, kernel, host, cpus, started, finished, wall_seconds, "
              "min_time_s, repetitions, budget_s, spawn_timeout_s FROM bench_runs WHERE run_id = ?");
  q.bind(1, run_id);
  if (!q.step()) throw Error("no bench file or history bench run '" + run_id + "'");
  bench::BenchDoc d;
  bench::BenchInfo& i = d.info;
  const std::int64_t row = q.integer(0);
  i.run_id = run_id, i.spawner = q.text(1), i.spawner_version = q.text(2), i.spawner_description = q.text(3);
  i.spawner_arg = q.text(4), i.policy = q.text(5), i.probe = q.text(6), i.breakout_version = q.text(7);
  i.commit = q.text(8), i.platform = q.text(9), i.kernel = q.text(10), i.host = q.text(11);
  i.cpus = static_cast<int>(q.integer(12)), i.started_utc = q.text(13), i.finished_utc = q.text(14);
  i.wall_seconds = q.real(15), i.settings.min_time_s = q.real(16);
  i.settings.repetitions = static_cast<int>(q.integer(17)), i.settings.budget_s = q.real(18);
  i.settings.spawn_timeout_s = q.real(19);
  sql::Stmt f(db_,
              "SELECT name, kind, via, status, reason, n, iterations, p50_ms, p90_ms, p99_ms, min_ms, max_ms, "
              "mean_ms, stddev_ms, ratio_to_raw, calibration_ms, bytes_per_spawn, bytes_per_second, repetition_ms "
              "FROM bench_figures WHERE bench_run = ? ORDER BY rowid");
  f.bind(1, row);
  while (f.step()) {
    bench::Figure g;
    g.name = f.text(0), g.kind = f.text(1), g.via = f.text(2), g.status = f.text(3), g.reason = f.text(4);
    g.ms.n = static_cast<std::size_t>(f.integer(5)), g.schedule.iterations = f.integer(6);
    g.ms.p50 = f.real(7), g.ms.p90 = f.real(8), g.ms.p99 = f.real(9), g.ms.min = f.real(10), g.ms.max = f.real(11);
    g.ms.mean = f.real(12), g.ms.stddev = f.real(13), g.ratio_to_raw = f.is_null(14) ? 0 : f.real(14);
    g.calibration_ms = f.real(15), g.bytes_per_spawn = static_cast<std::uint64_t>(f.integer(16));
    g.bytes_per_second = f.real(17);
    g.repetition_ms = nlohmann::json::parse(f.text(18)).get<std::vector<double>>();
    g.schedule.repetitions = static_cast<int>(g.repetition_ms.size());
    d.figures.push_back(std::move(g));
  }
  return d;
}

bool BenchHistory::has(const std::string& run_id) {
  sql::Stmt q(db_, "SELECT 1 FROM bench_runs WHERE run_id = ?");
  q.bind(1, run_id);
  return q.step();
}

std::vector<std::string> BenchHistory::last_run_ids(const std::string& spawner, int n) {
  sql::Stmt q(db_,
              "SELECT run_id FROM bench_runs WHERE (?1 = '' OR spawner = ?1) ORDER BY started DESC, id DESC LIMIT ?2");
  q.bind(1, spawner).bind(2, n);
  std::vector<std::string> out;
  while (q.step()) out.push_back(q.text(0));
  return out;
}

std::vector<LatencyPoint> BenchHistory::latency_trend(const std::string& spawner, int n) {
  sql::Stmt q(db_,
              "SELECT r.run_id, r.started, f.p50_ms, f.p99_ms, f.ratio_to_raw FROM bench_runs r "
              "JOIN bench_figures f ON f.bench_run = r.id "
              "WHERE r.spawner = ?1 AND f.name = 'spawn/' || ?1 AND f.status = 'ok' "
              "ORDER BY r.started DESC, r.id DESC LIMIT ?2");
  q.bind(1, spawner).bind(2, n);
  std::vector<LatencyPoint> out;
  while (q.step()) out.push_back({q.text(0), q.text(1), q.real(2), q.real(3), q.is_null(4) ? 0 : q.real(4)});
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace breakout
