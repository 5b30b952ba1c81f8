// Unit tests of harness/bench/statistics: percentiles, summaries, Mann-Whitney U against known values.
//
// Expected values come from (a) scipy's documentation and R's ?wilcox.test
// example (independent of this code), and (b) this reference, run with
// /usr/bin/python3 (scipy is not installed here):
//
//   import math
//   def mwu(x, y):  # scipy.stats.mannwhitneyu(x, y, method="asymptotic"), two-sided
//       n1, n2 = len(x), len(y); n = n1 + n2
//       pooled = sorted([(v, 0) for v in x] + [(v, 1) for v in y])
//       r1 = ties = 0.0; i = 0
//       while i < n:
//           j = i
//           while j < n and pooled[j][0] == pooled[i][0]: j += 1
//           r1 += sum((i + 1 + j) / 2 for k in range(i, j) if pooled[k][1] == 0)
//           ties += (j - i) ** 3 - (j - i); i = j
//       u1 = r1 - n1 * (n1 + 1) / 2; u = max(u1, n1 * n2 - u1)
//       s = math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
//       z = (u - n1 * n2 / 2 - 0.5) / s
//       return u1, z, min(1.0, math.erfc(z / math.sqrt(2)))
#include <gtest/gtest.h>

#include "harness/bench/statistics.h"
#include "harness/core/error.h"

namespace breakout::bench {
namespace {

TEST(BenchPercentile, LinearInterpolationLikeNumpy) {
  // numpy.percentile([1, 2, 3, 4], [50, 90, 99]) == [2.5, 3.7, 3.97]
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile(v, 0.5), 2.5);
  EXPECT_NEAR(percentile(v, 0.9), 3.7, 1e-12);
  EXPECT_NEAR(percentile(v, 0.99), 3.97, 1e-12);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 1), 4);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_NEAR(percentile(hundred, 0.99), 99.01, 1e-9);
  EXPECT_DOUBLE_EQ(percentile({5}, 0.99), 5);
}

TEST(BenchPercentile, RejectsEmptyAndOutOfRange) {
  EXPECT_THROW(percentile({}, 0.5), Error);
  EXPECT_THROW(percentile({1, 2}, 1.5), Error);
  EXPECT_THROW(summarize({}), Error);
}

TEST(BenchSummary, OrderFreeFigures) {
  const Summary s = summarize({4, 1, 3, 2});  // unsorted on purpose
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.stddev, 1.2909944487358056, 1e-12);  // statistics.stdev([1, 2, 3, 4])
  EXPECT_DOUBLE_EQ(s.p50, 2.5);
  EXPECT_NEAR(s.p90, 3.7, 1e-12);
  EXPECT_NEAR(s.p99, 3.97, 1e-12);
  EXPECT_DOUBLE_EQ(summarize({7}).stddev, 0);
  EXPECT_DOUBLE_EQ(median({9, 1, 5}), 5);
}

TEST(BenchMannWhitney, ScipyDocumentationExample) {
  // scipy.stats.mannwhitneyu docs: males vs females, method="asymptotic":
  // statistic=17.0, pvalue=0.11134688653314041.
  const auto m = mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_DOUBLE_EQ(m.u1, 17);
  EXPECT_NEAR(m.p_value, 0.11134688653314041, 1e-12);
}

TEST(BenchMannWhitney, RWilcoxTestExample) {
  // R ?wilcox.test: W = 35; wilcox.test(x, y, exact = FALSE) two-sided p = 0.2446 (reference: 0.24462360512698333).
  const auto m = mann_whitney_u({0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
                                {1.15, 0.88, 0.90, 0.74, 1.21});
  EXPECT_DOUBLE_EQ(m.u1, 35);
  EXPECT_NEAR(m.z, 1.1635076278220096, 1e-12);
  EXPECT_NEAR(m.p_value, 0.24462360512698333, 1e-12);
}

TEST(BenchMannWhitney, CompleteSeparationOfNine) {
  // Reference: mwu(range(1, 10), range(10, 19)) == (0.0, 3.5320862855067836, 0.0004122948020616911)
  std::vector<double> a, b;
  for (int i = 1; i <= 9; ++i) a.push_back(i), b.push_back(i + 9);
  const auto m = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(m.u1, 0);
  EXPECT_NEAR(m.z, 3.5320862855067836, 1e-12);
  EXPECT_NEAR(m.p_value, 0.0004122948020616911, 1e-15);
  // Two-sided: the same p with the sides swapped.
  EXPECT_NEAR(mann_whitney_u(b, a).p_value, m.p_value, 1e-15);
  EXPECT_DOUBLE_EQ(mann_whitney_u(b, a).u1, 81);
}

TEST(BenchMannWhitney, TieCorrection) {
  // Reference: mwu([1,2,2,3,3,3,4,5,6], [2,3,4,4,5,6,6,7,8]) == (19.0, 1.8767521763677422, 0.060552067813171816)
  const auto m = mann_whitney_u({1, 2, 2, 3, 3, 3, 4, 5, 6}, {2, 3, 4, 4, 5, 6, 6, 7, 8});
  EXPECT_DOUBLE_EQ(m.u1, 19);
  EXPECT_NEAR(m.z, 1.8767521763677422, 1e-12);
  EXPECT_NEAR(m.p_value, 0.060552067813171816, 1e-12);
  // Reference: mwu([1]*9 + [2], [1]*10) == (55.0, 0.9, 0.368120250693519): ties dominate the variance.
  const auto t = mann_whitney_u({1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_NEAR(t.z, 0.9, 1e-12);
  EXPECT_NEAR(t.p_value, 0.368120250693519, 1e-12);
}

TEST(BenchMannWhitney, AllTiedIsNoEvidence) {
  const auto m = mann_whitney_u(std::vector<double>(9, 1.0), std::vector<double>(9, 1.0));
  EXPECT_DOUBLE_EQ(m.p_value, 1);
  EXPECT_THROW(mann_whitney_u({}, {1}), Error);
}

}  // namespace
}  // namespace breakout::bench
