// Benchmark runs in the run history: the same SQLite file as escape results, tables bench_runs + bench_figures.
//
//   BenchHistory(default_history_path()).record(doc);   // after `breakout bench`
//   BenchDoc base = BenchHistory(path).load(run_id);      // `bench --baseline RUN_ID`
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/bench/bench_doc.h"
#include "harness/history/sqlite.h"

namespace breakout {

class BenchHistory {
 public:
  explicit BenchHistory(const std::filesystem::path& path);  // creates the file, its directory and the tables

  void record(const bench::BenchDoc& doc);
  bench::BenchDoc load(const std::string& run_id);                 // throws Error for an unknown id
  std::vector<std::string> last_run_ids(const std::string& spawner, int n);  // newest first; all spawners if ""

 private:
  sql::Db db_;
};

}  // namespace breakout
