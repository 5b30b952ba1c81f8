// What every bench/ benchmark shares: the fresh tree, the spawners, the probes, and adaptive scheduling.
//
//   auto t = env().target("bwrap", {env().noop}, &why);   // null + why when bwrap cannot run here
//   auto* b = benchmark::RegisterBenchmark("BM_SpawnBwrap", [t](auto& st) { BM_SpawnVia(st, t.get()); });
//   schedule(b, t.get());                                  // calibrate: Iterations + Repetitions within budget
#pragma once

#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "harness/bench/bench_run.h"
#include "harness/bench/spawn_probe.h"

namespace breakout::benchenv {

struct Env {
  Env();
  std::filesystem::path noop, pipe_flood;  // probe binaries next to this binary
  std::filesystem::path spawners_dir;
  bench::Settings settings;                // from --benchmark_min_time, --benchmark_repetitions, --bench_budget
  std::unique_ptr<bench::BenchTree> tree;  // workspace-write policy on a fresh tree
  std::regex filter{"."};                  // --benchmark_filter: gbench's own match (regex search)

  // Whether --benchmark_filter selects `name`: unselected benchmarks are neither calibrated nor registered.
  bool wanted(const std::string& name) const { return std::regex_search(name, filter); }

  // The probe through spawner `name` ("none", "bwrap", "firejail"); null with `why` when unavailable.
  std::shared_ptr<bench::Target> target(const std::string& name, std::vector<std::string> argv, std::string* why);
  std::shared_ptr<bench::Target> raw(std::vector<std::string> argv);

 private:
  std::vector<std::unique_ptr<Spawner>> spawners_;  // kept alive for their targets
};

Env& env();  // created by main() after the flags are parsed

// Calibrates `t` (one spawn per thread's share) and sets Iterations and
// Repetitions with bench::schedule_for, the same rule `breakout bench` uses.
void schedule(benchmark::internal::Benchmark* b, bench::Target* t, int threads = 1);

// The timed loop every spawn benchmark runs: one spawn_once() per iteration.
void run_spawns(benchmark::State& state, bench::Target* t);

// Registration hooks of the benchmark files (called by main after env() exists).
void register_spawn_benchmarks();
void register_pipe_benchmarks();
void register_concurrent_benchmarks();

}  // namespace breakout::benchenv
