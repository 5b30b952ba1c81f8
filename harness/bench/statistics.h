// Sample statistics for benchmarks: percentiles, summaries and the two-sided Mann-Whitney U test.
//
//   Summary s = summarize(samples_ms);            // n, min, max, mean, stddev, p50, p90, p99
//   MannWhitney t = mann_whitney_u(base, now);    // t.p_value < 0.05: the distributions differ
#pragma once

#include <cstddef>
#include <vector>

namespace breakout::bench {

// Linear interpolation between closest ranks (Hyndman & Fan type 7; numpy.percentile's
// default, so a reader can check a figure with one numpy call). `sorted` ascending,
// non-empty; q in [0, 1]. Throws Error on empty input or q out of range.
double percentile(const std::vector<double>& sorted, double q);

struct Summary {
  std::size_t n = 0;
  double min = 0, max = 0, mean = 0, stddev = 0;  // stddev: sample (n - 1) standard deviation, 0 for n < 2
  double p50 = 0, p90 = 0, p99 = 0;
};
Summary summarize(std::vector<double> samples);  // throws Error when empty

double median(std::vector<double> samples);  // throws Error when empty

// Two-sided Mann-Whitney U test, normal approximation with tie correction and
// continuity correction: what scipy.stats.mannwhitneyu(x, y,
// alternative="two-sided", method="asymptotic") computes, the test
// google/benchmark's tools/gbench/report.py runs on per-repetition timings.
struct MannWhitney {
  double u1 = 0;       // U statistic of x (scipy's returned statistic)
  double z = 0;        // standardised max(U1, U2), after continuity correction
  double p_value = 1;  // two-sided, in [0, 1]
};
MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);  // throws Error on empty input

}  // namespace breakout::bench
