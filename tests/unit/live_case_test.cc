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

void expect_same_case(const LiveCase& a, const LiveCase& b) {
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.control, b.control);
  EXPECT_EQ(a.form, b.form);
  EXPECT_EQ(a.env, b.env);
  EXPECT_EQ(a.cwd, b.cwd);
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.spelling, b.spelling);
}

LiveCase decode(std::vector<std::uint8_t> bytes) { return decode_live_case(bytes.data(), bytes.size()); }

TEST(LiveCase, EveryByteStringDecodesAndReencodes) {
  for (int b = 0; b < 256; b += 7) {
    for (int shift = 0; shift < 7; ++shift) {
      std::vector<std::uint8_t> data(7);
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(b + (i + 1) * shift + i);
      const LiveCase c = decode(data);
      const auto bytes = encode_live_case(c);
      SCOPED_TRACE(describe_live_case(c));
      expect_same_case(decode(bytes), c);
      EXPECT_NO_THROW(live_attempt(c));
      EXPECT_FALSE(describe_live_case(c).empty());
    }
  }
  const LiveCase empty = decode_live_case(nullptr, 0);  // missing bytes read as 0
  EXPECT_EQ(empty.policy, "workspace-write");
  EXPECT_EQ(empty.form, PathForm::kAbsolute);
  EXPECT_EQ(empty.cwd, 0u);
  EXPECT_EQ(empty.path, 0u);
}

// Inputs of five bytes (the seed corpus, older artifacts) keep their case: [5] and [6] read as 0,
// and operations 0..3 keep their place in the table.
TEST(LiveCase, FiveByteInputsKeepTheirCase) {
  const LiveCase c = decode({0, 0, 1, 1, 2});
  expect_same_case(c, decode({0, 0, 1, 1, 2, 0, 0}));
  EXPECT_EQ(c.op, LiveOp::kProbeWrite);
  EXPECT_EQ(c.target, "fs:sibling/existing.txt");
  EXPECT_EQ(live_kind(c), "probe-write");
  const Attempt a = live_attempt(c);
  EXPECT_EQ(a.klass, AttemptClass::kFsWrite);
  EXPECT_EQ(a.param, "dotdot");
  EXPECT_EQ(a.env, (std::vector<std::string>{"PWD={sibling}", "OLDPWD={sibling}"}));
  EXPECT_EQ(decode({0, 3, 2, 1, 0}).op, LiveOp::kApiRead);
}

// Byte [5]: the exec runs in a directory outside the roots and the probe writes relative to it
// (class cwd-write, as exec.cwd-outside), the cwd spelled in the path form.
TEST(LiveCase, CwdIsADimensionOfProbeWrites) {
  const LiveCase c = decode({1, 0, 4, 8, 2, 1, 0});  // symlink-file, cwd sibling
  EXPECT_EQ(live_kind(c), "cwd-write");
  EXPECT_EQ(c.target, "fs:sibling");
  EXPECT_EQ(c.control, "fs:workspace/cwd");
  EXPECT_EQ(encode_live_case(c), (std::vector<std::uint8_t>{1, 0, 0, 8, 2, 1, 0}));  // the target byte is unused
  const Attempt a = live_attempt(c);
  EXPECT_EQ(a.klass, AttemptClass::kCwdWrite);
  EXPECT_EQ(a.param, "symlink-file");
  EXPECT_EQ(a.args, (std::vector<std::string>{"--op", "create", "--path", "breakout-cwd-{tag}"}));
  EXPECT_EQ(a.targets, (std::vector<std::string>{"fs:sibling", "fs:workspace/cwd"}));
  EXPECT_EQ(a.probe, "fs-write");
  const std::string words = describe_live_case(c);
  EXPECT_NE(words.find("asked to run in sibling spelled in path form symlink-file"), std::string::npos) << words;
  EXPECT_EQ(decode({0, 0, 0, 0, 0, 3, 0}).target, "fs:~");
  EXPECT_EQ(decode({0, 0, 0, 0, 0, 2, 0}).target, "fs:parent");
  // Other operations ignore it (and encode it as 0).
  const LiveCase read = decode({0, 1, 0, 0, 0, 1, 1});
  EXPECT_EQ(read.cwd, 0u);
  EXPECT_EQ(read.path, 0u);
  EXPECT_EQ(live_attempt(read).klass, AttemptClass::kFsRead);
}

// Byte [6]: the harness's stubs first on PATH (class path-hijack, as exec.path-hijack), named
// absolutely, relatively, as `.` or as an empty entry; the marks go to the write target's directory.
TEST(LiveCase, PathIsADimensionOfProbeWrites) {
  const LiveCase c = decode({0, 0, 3, 5, 1, 2, 3});  // ~/.bashrc, cwd byte 2 (PATH wins), dot
  EXPECT_EQ(live_kind(c), "path-hijack");
  EXPECT_EQ(c.target, "fs:~");
  EXPECT_EQ(c.control, "fs:workspace/marks");
  EXPECT_EQ(c.cwd, 0u);
  EXPECT_EQ(c.form, PathForm::kAbsolute);
  EXPECT_EQ(encode_live_case(c), (std::vector<std::uint8_t>{0, 0, 3, 0, 1, 0, 3}));
  const Attempt a = live_attempt(c);
  EXPECT_EQ(a.klass, AttemptClass::kPathHijack);
  EXPECT_EQ(a.probe, "path-exec");
  EXPECT_EQ(a.param, "dot");
  EXPECT_EQ(a.targets, (std::vector<std::string>{"fs:~", "fs:workspace/marks"}));
  EXPECT_NE(describe_live_case(c).find("the entry . (cwd: workspace/.bin)"), std::string::npos);
  EXPECT_EQ(live_attempt(decode({0, 0, 0, 0, 0, 0, 1})).param, "");  // "absolute" is exec.path-hijack's own
  EXPECT_EQ(live_attempt(decode({0, 0, 0, 0, 0, 0, 4})).param, "empty");
  EXPECT_EQ(live_attempt(decode({0, 0, 0, 0, 0, 0, 2})).param, "relative");
  EXPECT_EQ(decode({0, 0, 4, 0, 0, 0, 1}).target, "fs:~/.config/autostart");
  const LiveCase own = decode({0, 0, 5, 0, 0, 0, 1});  // the workspace target: the control on its own
  EXPECT_EQ(live_attempt(own).targets, (std::vector<std::string>{"fs:workspace/marks"}));
}

// Operations 4..6: through the sandbox's proxy under network-proxy, the destination spelled as
// proxy.toml / proxy_names.toml do; the control is another attempt, unspelled, to the allowed one.
TEST(LiveCase, ProxySpellingsAreOperationsWithTheirOwnControl) {
  const LiveCase c = decode({1, 4, 1, 6, 3, 1, 1});
  EXPECT_EQ(c.op, LiveOp::kProxyConnect);
  EXPECT_EQ(c.policy, "network-proxy");
  EXPECT_EQ(std::string(live_suite(c)), "proxy");
  EXPECT_EQ(c.target, "net:proxy-denied");
  EXPECT_EQ(encode_live_case(c), (std::vector<std::uint8_t>{0, 4, 1, 0, 0, 0, 0}));
  // An IP spelling aims at the denied address too (an odd byte 3), as proxy.toml's do.
  const LiveCase to_address = decode({1, 4, 1, 7, 3, 1, 1});
  EXPECT_EQ(to_address.target, "net:name-denied");
  EXPECT_EQ(to_address.control, "net:proxy-allowed");
  EXPECT_EQ(encode_live_case(to_address), (std::vector<std::uint8_t>{0, 4, 1, 1, 0, 0, 0}));
  EXPECT_EQ(live_attempt(to_address).targets, (std::vector<std::string>{"net:name-denied"}));
  EXPECT_EQ(decode({0, 4, 0, 1}).target, "net:proxy-denied");  // "denied" has no second destination
  const Attempt a = live_attempt(c);
  EXPECT_EQ(a.klass, AttemptClass::kProxyConnect);
  EXPECT_EQ(a.probe, "net-connect");
  EXPECT_EQ(a.args, (std::vector<std::string>{"--target", "{target}", "--nonce", "{nonce}", "--route", "connect",
                                              "--spell", "decimal"}));
  EXPECT_EQ(a.targets, (std::vector<std::string>{"net:proxy-denied"}));
  const auto control = live_control_attempt(c);
  ASSERT_TRUE(control.has_value());
  EXPECT_EQ(a.controls_from, control->id);
  EXPECT_EQ(control->targets, (std::vector<std::string>{"net:proxy-allowed"}));
  EXPECT_EQ(control->args, (std::vector<std::string>{"--target", "{target}", "--nonce", "{nonce}", "--route", "connect"}));
  // Names: the control asks by name too; spellings only an absolute URI carries need that route.
  const LiveCase named = decode({0, 6, 8});
  EXPECT_EQ(live_proxy_spellings()[named.spelling], "nul-suffix");
  EXPECT_EQ(named.target, "net:name-denied");
  EXPECT_EQ(live_control_attempt(named)->args.back(), "{target_name}");
  EXPECT_TRUE(live_attempt(named).uses_names);  // the run's name server must answer, or a skip says why
  EXPECT_TRUE(live_control_attempt(named)->uses_names);
  EXPECT_FALSE(a.uses_names);
  EXPECT_EQ(live_proxy_spellings()[decode({0, 5, 12}).spelling], "host-header");
  EXPECT_EQ(live_proxy_spellings()[decode({0, 4, 12}).spelling], "denied");  // 12 mod 12
  EXPECT_NE(describe_live_case(named).find("route socks5"), std::string::npos);
  EXPECT_FALSE(live_control_attempt(decode({0, 0, 0})).has_value());
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

TEST(LiveCase, RegressionsOfTheNewDimensionsParseBack) {
  const LiveCase cwd = decode({0, 0, 0, 1, 0, 1, 0});
  auto attempts = parse_attempts_text(regression_toml(cwd, "x", {}), "cwd");
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].id, "regression.cwd-write.dotdot.sibling");
  EXPECT_EQ(attempts[0].param, "dotdot");
  const LiveCase path = decode({0, 0, 0, 0, 0, 0, 4});
  attempts = parse_attempts_text(regression_toml(path, "x", {}), "path");
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(to_string(attempts[0].klass), std::string("path-hijack"));
  EXPECT_EQ(attempts[0].param, "empty");
  // A proxy find: two attempts, the second the first's control, saved where the proxy suite looks.
  const LiveCase proxy = decode({0, 5, 13});
  const std::string text = regression_toml(proxy, "x", {});
  attempts = parse_attempts_text(text, "proxy");
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].id, "regression.proxy-absolute.uri-host.proxy-denied");
  EXPECT_EQ(attempts[0].controls_from, attempts[1].id);
  EXPECT_EQ(attempts[1].targets, (std::vector<std::string>{"net:proxy-allowed"}));
  EXPECT_NE(text.find("the proxy suite runs it"), std::string::npos);
  EXPECT_EQ(regression_dir(proxy, "regs"), fs::path("regs") / "proxy");
  EXPECT_EQ(regression_dir(cwd, "regs"), fs::path("regs"));
  // A find by name keeps saying it needs the name server (uses = ["names"]), control included.
  attempts = parse_attempts_text(regression_toml(decode({0, 6, 8}), "x", {}), "named");
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_TRUE(attempts[0].uses_names);
  EXPECT_TRUE(attempts[1].uses_names);
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
