// Shared setup of the bench/ binary: paths, the tree, spawner targets, calibration -> schedule.
#include "bench/bench_env.h"

#include <chrono>
#include <thread>

#include "harness/core/error.h"
#include "harness/model/policy.h"
#include "harness/platform/os.h"
#include "harness/spawner/spawner.h"

namespace breakout::benchenv {

namespace fs = std::filesystem;

Env::Env()
    : noop(self_exe_dir() / "breakout-probe-noop"),
      pipe_flood(self_exe_dir() / "breakout-probe-pipe-flood"),
      spawners_dir(fs::path(BREAKOUT_DATA_DIR) / "spawners") {
  check(fs::exists(noop), "probe not built: " + noop.string());
  tree = std::make_unique<bench::BenchTree>(
      load_policy_file(fs::path(BREAKOUT_DATA_DIR) / "scenarios" / "policies" / "workspace-write.toml"));
}

std::shared_ptr<bench::Target> Env::target(const std::string& name, std::vector<std::string> argv, std::string* why) {
  auto s = make_spawner(name, spawners_dir);
  if (auto r = s->unavailable_reason()) {
    *why = name + " unavailable: " + *r;
    return nullptr;
  }
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(settings.spawn_timeout_s * 1000));
  auto t = std::make_shared<bench::SpawnerTarget>(*s, *tree, std::move(argv), timeout);
  // A spawner that is installed but cannot run here (no user namespaces, not root) fails its first spawn.
  try {
    t->spawn_once();
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
  spawners_.push_back(std::move(s));
  return t;
}

std::shared_ptr<bench::Target> Env::raw(std::vector<std::string> argv) { return bench::make_raw_target(*tree, std::move(argv)); }

void schedule(benchmark::internal::Benchmark* b, bench::Target* t, int threads) {
  b->UseRealTime();
  if (t == nullptr) {  // skipped with an error inside the benchmark: run it once
    b->Iterations(1)->Repetitions(1);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(t->spawn_once().wall).count();
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // With more threads than cores each thread's spawns take proportionally longer.
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  const double per_spawn_s = ms / 1000 * std::max(1.0, threads / cores);
  const bench::Schedule s = bench::schedule_for(per_spawn_s, env().settings.budget_s - spent, env().settings);
  b->Iterations(s.iterations)->Repetitions(s.repetitions);
  // Spread of the repetitions, beside gbench's mean/median/stddev/cv.
  b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
  b->ComputeStatistics("max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); });
}

void run_spawns(benchmark::State& state, bench::Target* t) {
  try {
    for (auto _ : state) t->spawn_once();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace breakout::benchenv
