// `breakout bench`: spawn-latency benchmarks of a spawner against the raw floor, JSON out, history, baseline compare.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace breakout {

struct BenchCommand;
std::shared_ptr<BenchCommand> add_bench_command(CLI::App& app);

struct BenchDirs {
  std::filesystem::path scenarios, spawners, probes;
};
// The exit status when `bench` was given, nullopt otherwise (docs/bench.md: 0, 1, 2, 4, 130).
std::optional<int> run_bench_command(const BenchCommand& cmd, const BenchDirs& dirs);

// `breakout diff BASE NEW` on two breakout.bench/1 files: the latency compare
// (gate 0 / 4); nullopt when they are not both bench documents.
std::optional<int> diff_bench_files(const std::vector<std::string>& runs, const std::string& json_out);

}  // namespace breakout
