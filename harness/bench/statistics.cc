// Percentiles, summaries and the Mann-Whitney U test (formulas cited inline; no dependencies).
#include "harness/bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "harness/core/error.h"

namespace breakout::bench {

double percentile(const std::vector<double>& sorted, double q) {
  check(!sorted.empty(), "percentile of no samples");
  check(q >= 0 && q <= 1, "percentile: q outside [0, 1]");
  // Type 7: h = (n - 1) q; x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double median(std::vector<double> samples) {
  check(!samples.empty(), "median of no samples");
  std::sort(samples.begin(), samples.end());
  return percentile(samples, 0.5);
}

Summary summarize(std::vector<double> samples) {
  check(!samples.empty(), "summary of no samples");
  std::sort(samples.begin(), samples.end());
  Summary s;
  s.n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double x : samples) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  s.p50 = percentile(samples, 0.50);
  s.p90 = percentile(samples, 0.90);
  s.p99 = percentile(samples, 0.99);
  return s;
}

MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  check(!x.empty() && !y.empty(), "Mann-Whitney U test needs samples on both sides");
  const double n1 = static_cast<double>(x.size()), n2 = static_cast<double>(y.size());
  const double n = n1 + n2;
  // Midranks of the pooled sample (ties share the mean of their ranks).
  std::vector<std::pair<double, int>> pooled;  // value, side (0 = x)
  for (double v : x) pooled.push_back({v, 0});
  for (double v : y) pooled.push_back({v, 1});
  std::sort(pooled.begin(), pooled.end());
  double r1 = 0;        // rank sum of x
  double tie_term = 0;  // sum over tie groups of t^3 - t
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks are 1-based
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) r1 += midrank;
    tie_term += t * t * t - t;
    i = j;
  }
  MannWhitney m;
  m.u1 = r1 - n1 * (n1 + 1) / 2;
  // scipy.stats._mannwhitneyu._get_mwu_z: U = max(U1, U2), mu = n1 n2 / 2,
  // s^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))), z = (U - mu - 0.5) / s,
  // p = 2 sf(z) = erfc(z / sqrt 2), clipped to [0, 1].
  const double u = std::max(m.u1, n1 * n2 - m.u1);
  const double mu = n1 * n2 / 2;
  const double var = n1 * n2 / 12 * ((n + 1) - (n > 1 ? tie_term / (n * (n - 1)) : 0));
  if (var <= 0) return m;  // every value tied: no evidence of a difference (scipy gives nan; we say p = 1)
  m.z = (u - mu - 0.5) / std::sqrt(var);
  m.p_value = std::clamp(std::erfc(m.z / std::sqrt(2.0)), 0.0, 1.0);
  return m;
}

}  // namespace breakout::bench
