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

struct HistoryOptions;
struct ReportInput;

// `breakout diff BASE NEW` on two bench runs (breakout.bench/1 files or bench run ids
// in the history): the latency compare (gate 0 / 4); nullopt when they are not both bench runs.
std::optional<int> diff_bench_runs(const std::vector<std::string>& runs, const std::string& json_out,
                                   const HistoryOptions& history);

// `breakout report`: the bench section. SPEC is a bench file or history bench run id; with SPEC ""
// the newest bench run of the report's spawner in the history, if any. Also that spawner's latency
// trend from the history. Fills in.bench, in.latency_trend and in.bench_note; throws Error for a bad SPEC.
void add_bench_to_report(ReportInput& in, const std::string& spec, const HistoryOptions& history);

}  // namespace breakout
