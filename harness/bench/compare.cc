// Per-benchmark verdicts of a bench compare: matched by name, tested on repetition times.
#include "harness/bench/compare.h"

#include <iomanip>
#include <map>
#include <sstream>

namespace breakout::bench {

namespace {

std::string label(const BenchDoc& d) { return d.info.run_id + " (" + d.info.spawner + ")"; }

FigureComparison compare_one(const Figure* b, const Figure* n, const CompareOptions& o) {
  FigureComparison c;
  c.name = b ? b->name : n->name;
  if (!b || !n) {
    c.verdict = "not compared";
    c.note = b ? "only in base" : "only in new";
    return c;
  }
  if (b->status != "ok" || n->status != "ok") {
    c.verdict = "not compared";
    c.note = "base " + b->status + ", new " + n->status;
    return c;
  }
  c.base_repetitions = b->repetition_ms.size();
  c.new_repetitions = n->repetition_ms.size();
  c.base_p50 = b->ms.p50;
  c.new_p50 = n->ms.p50;
  c.ratio = c.base_p50 > 0 ? c.new_p50 / c.base_p50 : 0;
  if (c.base_repetitions < kMinRepetitions || c.new_repetitions < kMinRepetitions) {
    c.verdict = "no verdict";
    c.note = "not enough samples (n < " + std::to_string(kMinRepetitions) + "): no verdict";
    return c;
  }
  c.p_value = mann_whitney_u(b->repetition_ms, n->repetition_ms).p_value;
  if (*c.p_value >= o.alpha) {
    c.verdict = "no significant change";
  } else if (c.ratio > 1) {
    c.verdict = "slower";
    c.regression = c.ratio > 1 + o.min_change && b->via != "raw";
    if (b->via == "raw") c.note = "the raw floor measures the machine; never gates";
    else if (!c.regression) c.note = "below the --min-change threshold";
  } else {
    c.verdict = "faster";
  }
  return c;
}

}  // namespace

bool Comparison::regression() const {
  for (const auto& f : figures)
    if (f.regression) return true;
  return false;
}

Comparison compare_bench(const BenchDoc& base, const BenchDoc& now, const CompareOptions& options) {
  Comparison c;
  c.base_label = label(base);
  c.new_label = label(now);
  c.options = options;
  std::map<std::string, const Figure*> b, n;
  for (const auto& f : base.figures) b[f.name] = &f;
  for (const auto& f : now.figures) n[f.name] = &f;
  for (const auto& f : now.figures) c.figures.push_back(compare_one(b.count(f.name) ? b[f.name] : nullptr, &f, options));
  for (const auto& f : base.figures)
    if (!n.count(f.name)) c.figures.push_back(compare_one(&f, nullptr, options));
  return c;
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json figures = nlohmann::json::array();
  for (const auto& f : c.figures)
    figures.push_back({{"name", f.name},
                       {"base_repetitions", f.base_repetitions},
                       {"new_repetitions", f.new_repetitions},
                       {"base_p50_ms", f.base_p50},
                       {"new_p50_ms", f.new_p50},
                       {"ratio", f.ratio},
                       {"p_value", f.p_value ? nlohmann::json(*f.p_value) : nlohmann::json(nullptr)},
                       {"verdict", f.verdict},
                       {"note", f.note},
                       {"regression", f.regression}});
  return {{"schema", "breakout.bench-diff/1"},
          {"base", c.base_label},
          {"new", c.new_label},
          {"test", {{"name", "mann-whitney-u two-sided, normal approximation, tie + continuity correction"},
                    {"on", "repetition_ms"},
                    {"alpha", c.options.alpha},
                    {"min_repetitions", kMinRepetitions},
                    {"min_change", c.options.min_change}}},
          {"benchmarks", figures},
          {"regression", c.regression()},
          {"gate", c.gate_status()}};
}

void print_comparison(std::ostream& out, const Comparison& c) {
  out << "breakout bench compare: " << c.base_label << " -> " << c.new_label << "\n"
      << "(two-sided Mann-Whitney U on repetition times, alpha " << c.options.alpha << ", >= " << kMinRepetitions
      << " repetitions per side; flagged when slower by > " << c.options.min_change * 100 << " %)\n\n";
  out << std::left << std::setw(26) << "benchmark" << std::right << std::setw(11) << "base p50" << std::setw(11)
      << "new p50" << std::setw(8) << "ratio" << std::setw(10) << "p" << std::setw(8) << "reps" << "  verdict\n";
  for (const auto& f : c.figures) {
    std::ostringstream p, reps;
    if (f.p_value) p << std::setprecision(3) << *f.p_value;
    else p << "-";
    reps << f.base_repetitions << "/" << f.new_repetitions;
    out << std::left << std::setw(26) << f.name << std::right << std::fixed << std::setprecision(3) << std::setw(11)
        << f.base_p50 << std::setw(11) << f.new_p50 << std::setprecision(2) << std::setw(8) << f.ratio
        << std::setw(10) << p.str() << std::setw(8) << reps.str() << "  "
        << (f.regression ? "REGRESSION: " : "") << f.verdict << (f.note.empty() ? "" : " (" + f.note + ")") << "\n";
    out.unsetf(std::ios::fixed);
  }
  out << "\nGate: " << (c.regression() ? "FAIL (significant slowdown)" : "pass (no significant slowdown)")
      << ", exit status " << c.gate_status() << "\n";
}

}  // namespace breakout::bench
