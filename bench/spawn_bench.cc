// Spawn latency of the no-op probe: raw floor, through `none` (harness overhead), bubblewrap, firejail.
#include "bench/bench_env.h"

namespace breakout::benchenv {

namespace {

// The physical floor: posix_spawn + waitpid, no harness (bench::RawTarget).
void BM_SpawnRaw(benchmark::State& state, bench::Target* t) { run_spawns(state, t); }

// The same probe through breakout's `none` spawner + run_process: the harness's own overhead.
void BM_SpawnNone(benchmark::State& state, bench::Target* t) { run_spawns(state, t); }

// Through a template profile (spawners/*.toml) under the workspace-write policy.
void BM_SpawnBwrap(benchmark::State& state, bench::Target* t) { run_spawns(state, t); }
void BM_SpawnFirejail(benchmark::State& state, bench::Target* t) { run_spawns(state, t); }

using Fn = void (*)(benchmark::State&, bench::Target*);

void add(const char* name, Fn fn, std::shared_ptr<bench::Target> t, const std::string& why) {
  if (!env().wanted(name)) return;
  auto* b = benchmark::RegisterBenchmark(name, [fn, t, why](benchmark::State& st) {
    if (!t) {
      st.SkipWithError(why.c_str());
      return;
    }
    fn(st, t.get());
  });
  schedule(b, t.get());
}

}  // namespace

void register_spawn_benchmarks() {
  const std::vector<std::string> noop = {env().noop.string()};
  std::string why;
  if (env().wanted("BM_SpawnRaw")) add("BM_SpawnRaw", BM_SpawnRaw, env().raw(noop), "");
  if (env().wanted("BM_SpawnNone")) {
    auto t = env().target("none", noop, &why);
    add("BM_SpawnNone", BM_SpawnNone, t, why);
  }
  if (env().wanted("BM_SpawnBwrap")) {
    auto t = env().target("bwrap", noop, &why);
    add("BM_SpawnBwrap", BM_SpawnBwrap, t, why);
  }
  if (env().wanted("BM_SpawnFirejail")) {
    auto t = env().target("firejail", noop, &why);
    add("BM_SpawnFirejail", BM_SpawnFirejail, t, why);
  }
}

}  // namespace breakout::benchenv
