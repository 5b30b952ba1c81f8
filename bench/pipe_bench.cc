// Pipe throughput through a spawner: breakout-probe-pipe-flood writes N bytes to each of stdout and stderr.
#include "bench/bench_env.h"

#include "harness/core/error.h"

namespace breakout::benchenv {

namespace {

constexpr std::int64_t kBytesPerStream = 8 << 20;  // the output-flood contract's size (docs/scenarios.md)

enum class Via { kNone, kBwrap, kFirejail };
constexpr const char* via_name(Via v) { return v == Via::kNone ? "none" : v == Via::kBwrap ? "bwrap" : "firejail"; }

// Bytes/s over both streams (SetBytesProcessed); each spawn's byte count is checked,
// so a spawner that drops output cannot look fast.
template <Via V>
void BM_PipeThroughput(benchmark::State& state, bench::Target* t) {
  const auto expected = static_cast<std::uint64_t>(2 * state.range(0));
  try {
    for (auto _ : state) {
      const bench::SpawnSample s = t->spawn_once();
      check(s.out_bytes + s.err_bytes == expected, std::string(via_name(V)) + ": output lost");
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(expected));
}

template <Via V>
void add() {
  const std::string name = std::string("BM_PipeThroughput<") + via_name(V) + ">/" + std::to_string(kBytesPerStream);
  if (!env().wanted(name)) return;
  std::string why;
  auto t = env().target(via_name(V), {env().pipe_flood.string(), "--bytes", std::to_string(kBytesPerStream)}, &why);
  auto* b = benchmark::RegisterBenchmark((std::string("BM_PipeThroughput<") + via_name(V) + ">").c_str(),
                                         [t, why](benchmark::State& st) {
                                           if (!t) {
                                             st.SkipWithError(why.c_str());
                                             return;
                                           }
                                           BM_PipeThroughput<V>(st, t.get());
                                         });
  b->Arg(kBytesPerStream);
  schedule(b, t.get());
}

}  // namespace

void register_pipe_benchmarks() {
  add<Via::kNone>();
  add<Via::kBwrap>();
  add<Via::kFirejail>();
}

}  // namespace breakout::benchenv
