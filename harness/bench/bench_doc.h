// The benchmark document (schema breakout.bench/1, docs/bench.md): one `breakout bench` run, written and read back.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bench/bench_run.h"

namespace breakout::bench {

inline constexpr const char* kBenchSchema = "breakout.bench/1";

struct BenchInfo {
  std::string run_id;
  std::string spawner, spawner_version, spawner_description, spawner_arg;
  std::string policy, probe;
  std::string breakout_version, commit, platform, kernel, host;
  int cpus = 0;
  std::string started_utc, finished_utc;
  double wall_seconds = 0;
  Settings settings;
};

struct BenchDoc {
  BenchInfo info;
  std::vector<Figure> figures;
};

nlohmann::json bench_json(const BenchDoc& doc);
BenchDoc bench_from_json(const nlohmann::json& j);  // throws Error naming the missing field

// True when `path` is a readable JSON file whose "schema" is breakout.bench/1
// (so `breakout diff` can tell bench documents from results files).
bool is_bench_file(const std::filesystem::path& path);
BenchDoc load_bench(const std::filesystem::path& path);  // throws Error("<path>: ...")
void write_bench(const std::filesystem::path& path, const BenchDoc& doc);

}  // namespace breakout::bench
