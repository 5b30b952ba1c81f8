// Latency regression compare of two benchmark runs: Mann-Whitney U on per-repetition times, size as a median ratio.
//
// The google/benchmark convention (tools/gbench/report.py): a two-sided U test
// on the repetitions of each side, alpha 0.05, and no verdict below 9
// repetitions per side (compare.py warns there: the test has too little power
// to mean anything). A benchmark is flagged when the test is significant AND
// its median got slower by more than `min_change` (a shared machine makes tiny
// but consistent shifts "significant"; the threshold keeps the gate for real
// slowdowns). The raw-spawn floor is compared but never gates: it measures the
// machine, not the spawner.
//
//   Comparison c = compare_bench(load_bench(base), load_bench(now), {});
//   print_comparison(std::cout, c);  return c.gate_status();   // 0 or 4
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bench/bench_doc.h"

namespace breakout::bench {

inline constexpr std::size_t kMinRepetitions = 9;
inline constexpr int kRegressionGateFails = 4;  // the diff gate's status (docs/results.md)

struct CompareOptions {
  double alpha = 0.05;
  double min_change = 0.10;  // flag only when new p50 > (1 + min_change) * base p50
};

struct FigureComparison {
  std::string name;
  std::size_t base_repetitions = 0, new_repetitions = 0;
  double base_p50 = 0, new_p50 = 0;
  double ratio = 0;                   // new p50 / base p50 (the size of the change); 0 when not both measured
  std::optional<double> p_value;      // nullopt: no test (too few repetitions, or not measured)
  std::string verdict;                // slower | faster | no significant change | no verdict | not compared
  std::string note;                   // e.g. "not enough samples (n < 9): no verdict"
  bool regression = false;            // gates
};

struct Comparison {
  std::string base_label, new_label;
  CompareOptions options;
  std::vector<FigureComparison> figures;
  bool regression() const;
  int gate_status() const { return regression() ? kRegressionGateFails : 0; }
};

Comparison compare_bench(const BenchDoc& base, const BenchDoc& now, const CompareOptions& options);
nlohmann::json comparison_json(const Comparison& c);  // schema breakout.bench-diff/1
void print_comparison(std::ostream& out, const Comparison& c);

}  // namespace breakout::bench
