// resolve_policy_path's string normaliser agrees with fs::path::lexically_normal, and path_within with element-wise comparison.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "harness/model/policy.h"

using namespace breakout;
namespace fs = std::filesystem;

namespace {

// Every string over {'/', '.', 'a', 'b'} up to `max_len` characters: all the cases of
// [fs.path.generic]'s normal form ("//", ".", "..", "...", trailing separators) in short.
std::vector<std::string> all_short_paths(std::size_t max_len) {
  std::vector<std::string> out = {""};
  for (std::size_t begin = 0, len = 1; len <= max_len; ++len) {
    const std::size_t end = out.size();
    for (std::size_t i = begin; i < end; ++i)
      for (char c : {'/', '.', 'a', 'b'}) out.push_back(out[i] + c);
    begin = end;
  }
  return out;
}

// What path_within meant before it worked on strings: fs::path elements compared one by one.
bool within_by_elements(const fs::path& p, const fs::path& root) {
  auto pi = p.begin();
  for (auto ri = root.begin(); ri != root.end(); ++ri, ++pi) {
    if (ri->empty()) continue;
    if (pi == p.end() || *pi != *ri) return false;
  }
  return true;
}

}  // namespace

TEST(PolicyPath, AbsoluteResolvesLikeLexicallyNormal) {
  const TreeRoots roots{"/t", "/t/workspace", "/t/sibling", "/t/home", "/t/extra"};
  for (const auto& s : all_short_paths(8)) {
    const std::string abs = "/" + s;
    EXPECT_EQ(resolve_policy_path(abs, roots).native(), fs::path(abs).lexically_normal().native()) << abs;
  }
}

TEST(PolicyPath, SymbolicResolvesLikeJoinThenLexicallyNormal) {
  for (const fs::path base : {"/t/home", "/t/home/", "/", "//t//home/..", ""}) {
    const TreeRoots roots{"/t", "/t/workspace", "/t/sibling", base, "/t/extra"};
    for (const auto& s : all_short_paths(7)) {
      const fs::path want = s.empty() ? base : (base / fs::path(s)).lexically_normal();
      EXPECT_EQ(resolve_policy_path("~/" + s, roots).native(), want.native()) << "'" << base << "' + '" << s << "'";
    }
  }
}

TEST(PolicyPath, IsLexicallyNormal) {
  for (const auto& s : all_short_paths(7))
    EXPECT_EQ(is_lexically_normal(s), fs::path(s).lexically_normal().native() == s) << s;
}

TEST(PolicyPath, WithinAgreesWithElementComparison) {
  std::vector<fs::path> paths;
  for (const auto& s : all_short_paths(4)) paths.emplace_back(s);
  for (const auto& p : paths)
    for (const auto& r : paths) EXPECT_EQ(path_within(p, r), within_by_elements(p, r)) << p << " in " << r;
}
