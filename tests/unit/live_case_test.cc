// Live-fuzzer cases: the decoder is total and round-trips, regressions parse back, path forms spell and plant as documented.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/core/error.h"
#include "harness/attempt/spell_path.h"
#include "harness/core/nonce.h"
#include "harness/live/live_case.h"
#include "harness/live/regression.h"

namespace breakout {
namespace {

namespace fs = std::filesystem;

TEST(LiveCase, EveryByteStringDecodesAndReencodes) {
  for (int b = 0; b < 256; b += 7) {
    const std::uint8_t data[5] = {static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(b + 1),
                                  static_cast<std::uint8_t>(b + 2), static_cast<std::uint8_t>(b + 3),
                                  static_cast<std::uint8_t>(b + 4)};
    const LiveCase c = decode_live_case(data, 5);
    const auto bytes = encode_live_case(c);
    const LiveCase again = decode_live_case(bytes.data(), bytes.size());
    EXPECT_EQ(again.policy, c.policy);
    EXPECT_EQ(again.op, c.op);
    EXPECT_EQ(again.target, c.target);
    EXPECT_EQ(again.form, c.form);
    EXPECT_EQ(again.env, c.env);
  }
  const LiveCase empty = decode_live_case(nullptr, 0);  // missing bytes read as 0
  EXPECT_EQ(empty.policy, "workspace-write");
  EXPECT_EQ(empty.form, PathForm::kAbsolute);
}

TEST(LiveCase, RegressionFileParsesBackWithTargetAndControl) {
  const std::uint8_t data[5] = {0, 2, 0, 1, 0};  // api-write, sibling/new-file, dotdot
  const LiveCase c = decode_live_case(data, 5);
  const std::string text = regression_toml(c, "crash-\"quoted\"\\name", {0, 2, 0, 1, 0});
  const auto attempts = parse_attempts_text(text, "regression");
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(to_string(attempts[0].klass), std::string("fs-api-write"));
  EXPECT_EQ(attempts[0].param, "dotdot");
  EXPECT_EQ(attempts[0].targets, (std::vector<std::string>{"fs:sibling/new-file", "fs:workspace/new-file"}));
  EXPECT_NE(text.find("bytes 0002000100"), std::string::npos);
}

class SpellPath : public ::testing::Test {
 protected:
  fs::path root = fs::temp_directory_path() / ("breakout-spell-" + random_hex(6));
  void TearDown() override { fs::remove_all(root); }
};

// The spelling of a form that applies; a Skip fails the test (std::get throws).
SpelledPath applies(const OrSkip<SpelledPath>& spelled) { return std::get<SpelledPath>(spelled); }

TEST_F(SpellPath, FormsReachTheSameObject) {
  AttemptTree tree(root, 0, random_hex(16));
  const fs::path target = tree.roots().sibling / "notes.txt";
  const fs::path cwd = tree.roots().workspace;
  for (PathForm f : all_path_forms()) {
    if (f == PathForm::kSiblingPrefix || f == PathForm::kSymlinkDangling || f == PathForm::kHardLink) continue;
    // /proc/self/cwd is this process's cwd, as it is the driver's for the fs API.
    const fs::path here = f == PathForm::kProcSelfCwd ? fs::current_path() : cwd;
    const SpelledPath p = applies(spell(f, target, tree, std::string("t") + to_string(f), here, false));
    EXPECT_EQ(p.host, target) << to_string(f);
    std::error_code ec;
    if (f == PathForm::kTrailingSlash) continue;  // "file/" is ENOTDIR by design
    EXPECT_TRUE(fs::equivalent(p.spelled, target, ec)) << to_string(f) << " " << p.spelled;
  }
  EXPECT_EQ(applies(spell(PathForm::kDotDot, target, tree, "x", cwd, false)).spelled,
            (tree.roots().workspace / "..").string() + "/sibling/notes.txt");
}

TEST_F(SpellPath, SiblingPrefixPlantsItsOwnCanaryAndKeepsTheControl) {
  AttemptTree tree(root, 0, random_hex(16));
  const SpelledPath p = applies(spell(PathForm::kSiblingPrefix, tree.roots().sibling / "notes.txt", tree, "x",
                                      tree.roots().workspace, false));
  EXPECT_EQ(p.spelled, tree.roots().workspace.string() + "-sibling/notes.txt");
  EXPECT_FALSE(p.token.empty());
  const fs::path control = tree.roots().workspace / "readable.txt";
  EXPECT_EQ(applies(spell(PathForm::kSiblingPrefix, control, tree, "y", tree.roots().workspace, false)).spelled,
            control.string());
}

TEST_F(SpellPath, HardLinkOnlyForTheFsApiAndDanglingOnlyForNewFiles) {
  AttemptTree tree(root, 0, random_hex(16));
  const fs::path existing = tree.roots().sibling / "existing.txt";
  EXPECT_TRUE(std::holds_alternative<Skip>(spell(PathForm::kHardLink, existing, tree, "a", tree.roots().workspace, false)));
  const SpelledPath hl = applies(spell(PathForm::kHardLink, existing, tree, "b", tree.roots().workspace, true));
  EXPECT_TRUE(fs::equivalent(hl.spelled, existing));
  EXPECT_TRUE(
      std::holds_alternative<Skip>(spell(PathForm::kSymlinkDangling, existing, tree, "c", tree.roots().workspace, false)));
  const SpelledPath d =
      applies(spell(PathForm::kSymlinkDangling, tree.roots().sibling / "new", tree, "d", tree.roots().workspace, false));
  EXPECT_TRUE(fs::is_symlink(d.spelled));
}

}  // namespace
}  // namespace breakout
