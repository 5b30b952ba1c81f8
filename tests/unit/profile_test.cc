// Template profile expansion: one argv element per template element, hostile paths stay inert.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/core/error.h"
#include "harness/model/policy.h"
#include "harness/spawner/template_spawner.h"

using namespace breakout;

namespace {

const char* kProfile = R"(
name = "t"
description = "test profile"
requires = ["true"]
command = ["tool", "{network...}", "{writable...}", "{deny_read...}", "--clearenv", "{env_set...}", "{env_unset...}", "--chdir", "{cwd}", "--", "{argv...}"]
writable_root = ["--bind", "{path}", "{path}"]
deny_read_dir = ["--tmpfs", "{path}"]
deny_read_file = ["--ro-bind", "/dev/null", "{path}"]
env_set = ["--setenv", "{name}", "{value}"]
env_unset = ["--rmenv={name}"]
[network]
none = ["--unshare-net"]
full = []
loopback = "cannot"
)";

struct TemplateRequest {
  Policy policy;
  SpawnRequest req;
  TemplateRequest(const std::string& root) {
    policy.name = "p";
    policy.network = NetworkMode::kNone;
    policy.writable_roots = {"extra"};
    policy.env.inherit = {"PATH", "KEEP"};
    policy.env.pinned = {{"http_proxy", "http://127.0.0.1:9"}};
    req.policy = &policy;
    req.roots = {root, root + "/workspace", root + "/sibling", root + "/home", root + "/extra"};
    req.resolved = resolve(policy, req.roots);
    req.cwd = root + "/workspace";
    req.probe_argv = {"/bin/probe", "--path", "{cwd}", "; rm -rf /"};
    req.caller_env = {{"PATH", "/bin"}, {"KEEP", "k"}, {"SECRET", "s"}, {"http_proxy", "http://evil:1"}};
  }
};

std::size_t index_of(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<std::size_t>(std::find(v.begin(), v.end(), s) - v.begin());
}

}  // namespace

TEST(Profile, HostilePathsStaySingleArguments) {
  const std::string root = "/tmp/-dash dir/it's \"quoted\" {cwd}";
  TemplateRequest f(root);
  const Profile p = parse_profile_text(kProfile, "test");
  const auto argv = expand_profile(p, f.req);
  // The workspace path appears as exactly one element, unchanged (no re-expansion of "{cwd}" inside it).
  const std::string ws = root + "/workspace";
  const std::size_t bind = index_of(argv, "--bind");
  ASSERT_LT(bind + 2, argv.size());
  EXPECT_EQ(argv[bind + 1], ws);
  EXPECT_EQ(argv[bind + 2], ws);
  EXPECT_EQ(argv[index_of(argv, "--chdir") + 1], ws);
  // The probe argv is passed through verbatim after "--".
  const std::size_t dashdash = index_of(argv, "--");
  ASSERT_EQ(argv.size() - dashdash - 1, 4u);
  EXPECT_EQ(argv[dashdash + 2], "--path");
  EXPECT_EQ(argv[dashdash + 3], "{cwd}");
  EXPECT_EQ(argv[dashdash + 4], "; rm -rf /");
}

TEST(Profile, NetworkAndEnvironmentMapping) {
  TemplateRequest f("/w");
  const Profile p = parse_profile_text(kProfile, "test");
  const auto argv = expand_profile(p, f.req);
  EXPECT_LT(index_of(argv, "--unshare-net"), argv.size());
  // Inherited and pinned variables are set; the pinned value beats the caller's.
  const std::size_t proxy = index_of(argv, "http_proxy");
  ASSERT_LT(proxy + 1, argv.size());
  EXPECT_EQ(argv[proxy + 1], "http://127.0.0.1:9");
  EXPECT_LT(index_of(argv, "KEEP"), argv.size());
  EXPECT_EQ(index_of(argv, "SECRET"), argv.size()) << "SECRET must not be set";
  EXPECT_LT(index_of(argv, "--rmenv=SECRET"), argv.size());
  EXPECT_EQ(index_of(argv, "--rmenv=KEEP"), argv.size());
}

TEST(Profile, UnsupportedModeIsSaidNotSilent) {
  const Profile p = parse_profile_text(kProfile, "test");
  auto s = make_template_spawner(p);
  Policy lo;
  lo.network = NetworkMode::kLoopback;
  auto why = s->cannot_express(lo);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("cannot"), std::string::npos);
  Policy none;
  EXPECT_FALSE(s->cannot_express(none).has_value());
}

TEST(Profile, DenyReadMasksOnlyExistingPaths) {
  TemplateRequest f("/nonexistent-breakout-root");
  const Profile p = parse_profile_text(kProfile, "test");
  const auto argv = expand_profile(p, f.req);
  EXPECT_EQ(index_of(argv, "--tmpfs"), argv.size());
}

// The Windows profiles (only schema-checked and expanded here: no Windows host, docs/windows.md).
TEST(Profile, CodexWindowsExpandsWritableRootsAndNetwork) {
  const Profile p = load_profile_file(std::filesystem::path(BREAKOUT_SOURCE_DIR) / "spawners" / "codex-windows.toml");
  TemplateRequest f("C:/w");
  f.policy.network = NetworkMode::kFull;
  const auto argv = expand_profile(p, f.req);
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[0], "codex");
  EXPECT_EQ(argv[1], "sandbox");
  // Every root in one TOML array (a -c replaces the whole array, so one -c per root kept only the last).
  EXPECT_LT(index_of(argv, "sandbox_workspace_write.writable_roots=[\"C:/w/workspace\", \"C:/w/extra\"]"),
            argv.size());
  EXPECT_LT(index_of(argv, "sandbox_workspace_write.network_access=true"), argv.size());
  EXPECT_EQ(argv[index_of(argv, "--") + 1], "/bin/probe");
  auto s = make_template_spawner(p);
  Policy lo;
  lo.network = NetworkMode::kLoopback;
  EXPECT_TRUE(s->cannot_express(lo).has_value());
}

TEST(Profile, SandboxiePassesTheProbeAfterItsOwnFlags) {
  const Profile p = load_profile_file(std::filesystem::path(BREAKOUT_SOURCE_DIR) / "spawners" / "sandboxie-plus.toml");
  TemplateRequest f("C:/w");
  const auto argv = expand_profile(p, f.req);
  ASSERT_EQ(argv.size(), 4u + f.req.probe_argv.size());
  EXPECT_EQ(argv[1], "/box:BreakoutBox");
  EXPECT_EQ(argv[2], "/wait");
  EXPECT_EQ(argv[4], "/bin/probe");
  EXPECT_EQ(argv.back(), "; rm -rf /");
}

// make_spawner and profile_fuzzer hand over the table they parsed to read "kind": the
// profile from it is the one parse_profile_text makes of the text.
TEST(Profile, ParsedTableGivesTheSameProfile) {
  const Profile a = parse_profile_text(kProfile, "test");
  const Profile b = parse_profile(toml::parse(kProfile), "test");
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.notes, b.notes);
  EXPECT_EQ(a.requires_tools, b.requires_tools);
  EXPECT_EQ(a.version_argv, b.version_argv);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.writable_root, b.writable_root);
  EXPECT_EQ(a.deny_read_dir, b.deny_read_dir);
  EXPECT_EQ(a.deny_read_file, b.deny_read_file);
  EXPECT_EQ(a.env_set, b.env_set);
  EXPECT_EQ(a.env_unset, b.env_unset);
  EXPECT_EQ(a.network, b.network);
  EXPECT_EQ(a.network_unsupported, b.network_unsupported);
  EXPECT_THROW((void)parse_profile(toml::parse("name = \"x\""), "test"), Error);
}

// A list's own keys ({path}, {name}, {value}) expand in that list only: the command around
// it sees the scalars alone. (Loading rejects such a command; expansion must not rely on it.)
TEST(Profile, ListKeysStayInTheirList) {
  TemplateRequest f("/t");
  Profile p;
  p.name = "t";
  p.command = {"{path}", "{writable...}", "{path}{name}", "{env_set...}", "{name}{value}", "{cwd}", "{argv...}"};
  p.writable_root = {"{path}"};
  p.env_set = {"{name}={value}"};
  p.network["none"] = {};
  const auto argv = expand_profile(p, f.req);
  const std::vector<std::string> want = {"{path}", "/t/workspace", "/t/extra", "{path}{name}", "KEEP=k", "PATH=/bin",
                                         "http_proxy=http://127.0.0.1:9", "{name}{value}", "/t/workspace", "/bin/probe",
                                         "--path", "{cwd}", "; rm -rf /"};
  EXPECT_EQ(argv, want);
}
