// Benchmark runs in the run history: the same SQLite file as escape results, tables bench_runs + bench_figures.
//
//   BenchHistory(default_history_path()).record(doc);   // after `breakout bench`
//   BenchDoc base = BenchHistory(path).load(run_id);      // `bench --baseline RUN_ID`, `diff RUN_ID RUN_ID`
//   auto points = BenchHistory(path).latency_trend("bwrap", 200);  // `report`, `history --trend`
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/bench/bench_doc.h"
#include "harness/history/sqlite.h"

namespace breakout {

// One bench run of a spawner in a latency trend: its own figure against raw spawn of the same run.
struct LatencyPoint {
  std::string run_id, started;
  double p50_ms = 0, p99_ms = 0;
  double ratio_to_raw = 0;  // 0: raw failed in that run
};

class BenchHistory {
 public:
  explicit BenchHistory(const std::filesystem::path& path);  // creates the file, its directory and the tables

  void record(const bench::BenchDoc& doc);
  bench::BenchDoc load(const std::string& run_id);                 // throws Error for an unknown id
  bool has(const std::string& run_id);
  std::vector<std::string> last_run_ids(const std::string& spawner, int n);  // newest first; all spawners if ""
  // p50 of `spawn/<spawner>` per bench run of that spawner that measured it, oldest first, at most the last `n`.
  std::vector<LatencyPoint> latency_trend(const std::string& spawner, int n);

 private:
  sql::Db db_;
};

}  // namespace breakout
