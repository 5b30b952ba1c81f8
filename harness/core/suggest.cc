// Edit distance and the "did you mean" sentence of the CLI's unknown-name errors.
#include "harness/core/suggest.h"

#include <algorithm>

#include "harness/core/text.h"

namespace breakout {

// Optimal string alignment (restricted Damerau-Levenshtein): Wagner-Fischer's table plus the
// transposition case, the same measure git's "did you mean" uses (help.c, levenshtein.c).
std::size_t edit_distance(std::string_view a_raw, std::string_view b_raw) {
  const std::string a = ascii_lower(std::string(a_raw)), b = ascii_lower(std::string(b_raw));
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& candidates) {
  constexpr std::size_t kMaxTyped = 256;  // a name longer than this is no typo of ours; the table stays small
  if (typed.empty() || typed.size() > kMaxTyped) return std::nullopt;
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& c : candidates) {
    if (c.size() > kMaxTyped) continue;
    const std::size_t dist = edit_distance(typed, c);
    const std::size_t near = std::max<std::size_t>(2, std::max(typed.size(), c.size()) / 3);
    if (dist > near || (best && dist >= best_distance)) continue;
    best = c;
    best_distance = dist;
  }
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  std::string out;
  if (auto near = closest_name(typed, candidates)) out = "did you mean '" + *near + "'? ";
  out += "valid: ";
  for (std::size_t i = 0; i < candidates.size(); ++i) out += (i ? ", " : "") + candidates[i];
  if (candidates.empty()) out += "(none found)";
  return out;
}

}  // namespace breakout
