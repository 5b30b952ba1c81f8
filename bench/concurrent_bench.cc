// Concurrent spawns through `none`: 1..2N threads spawning the no-op probe at once (spawns/s as items/s).
#include "bench/bench_env.h"

#include <thread>

namespace breakout::benchenv {

namespace {

// Each thread runs the calibrated number of spawns; with UseRealTime the
// reported time is wall time per spawn per thread, and items/s is the
// machine's aggregate spawn rate (what a parallel `breakout run --jobs N` gets).
void BM_SpawnConcurrent(benchmark::State& state, bench::Target* t) {
  run_spawns(state, t);
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

void register_concurrent_benchmarks() {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string why;
  std::shared_ptr<bench::Target> t;  // SpawnerTarget::spawn_once is const-safe: one target for all threads
  for (int threads = 1; threads <= 2 * cores; threads *= 2) {
    const std::string name = "BM_SpawnConcurrent/threads:" + std::to_string(threads);
    if (!env().wanted(name)) continue;
    if (!t && why.empty()) t = env().target("none", {env().noop.string()}, &why);
    auto* b = benchmark::RegisterBenchmark("BM_SpawnConcurrent", [t, why](benchmark::State& st) {
      if (!t) {
        st.SkipWithError(why.c_str());
        return;
      }
      BM_SpawnConcurrent(st, t.get());
    });
    b->Threads(threads);
    schedule(b, t.get(), threads);
  }
}

}  // namespace breakout::benchenv
