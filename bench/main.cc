// breakout_bench_spawn: Google Benchmark main that calibrates every benchmark before running it (bench/README.md).
//
// Flags beyond Google Benchmark's own: --bench_budget=S (seconds per
// benchmark, calibration included; default 60). --benchmark_min_time and
// --benchmark_repetitions are read here as well, because the calibrated
// schedule sets Iterations and Repetitions explicitly, which gbench's own
// flags would not override.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "bench/bench_env.h"

namespace breakout::benchenv {
namespace {
std::unique_ptr<Env> g_env;
}
Env& env() { return *g_env; }
}  // namespace breakout::benchenv

namespace {

// "--name=value" -> value, or nullptr.
const char* flag_value(const char* arg, const char* name) {
  const std::size_t n = std::strlen(name);
  return std::strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace breakout;
  bench::Settings settings;
  settings.budget_s = 60;
  std::string filter = ".";
  std::vector<char*> kept;
  for (int i = 0; i < argc; ++i) {
    if (const char* v = flag_value(argv[i], "--bench_budget")) {
      settings.budget_s = std::atof(v);
      continue;  // not a gbench flag: gbench would reject it
    }
    if (const char* v = flag_value(argv[i], "--benchmark_min_time")) settings.min_time_s = std::atof(v);  // "0.1" or "0.1s"
    if (const char* v = flag_value(argv[i], "--benchmark_repetitions")) settings.repetitions = std::atoi(v);
    if (const char* v = flag_value(argv[i], "--benchmark_filter")) filter = v;
    kept.push_back(argv[i]);
  }
  int kept_argc = static_cast<int>(kept.size());
  benchmark::Initialize(&kept_argc, kept.data());
  if (benchmark::ReportUnrecognizedArguments(kept_argc, kept.data())) return 1;
  try {
    benchenv::g_env = std::make_unique<benchenv::Env>();
    benchenv::env().settings = settings;
    benchenv::env().filter = std::regex(filter == "all" ? "." : filter);
    benchenv::register_spawn_benchmarks();
    benchenv::register_pipe_benchmarks();
    benchenv::register_concurrent_benchmarks();
  } catch (const std::exception& e) {
    std::cerr << "breakout_bench_spawn: " << e.what() << "\n";
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  benchenv::g_env.reset();  // removes the tree
  return 0;
}
