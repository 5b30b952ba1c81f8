// OCI runtimes through template profiles: the probe, its environment and cwd in the config file
// ({argv:json}, {env:json}, {cwd:json}), arrays joined into one ({a+b:json}), masks by kind
// (items.deny_read_dir / _file), one {exec_id} per spawn, and the `after` command that removes it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "harness/core/error.h"
#include "harness/model/policy.h"
#include "harness/platform/process.h"
#include "harness/spawner/template_spawner.h"

using namespace breakout;
namespace fs = std::filesystem;

namespace {

const fs::path kOciSpawners = fs::path(BREAKOUT_SOURCE_DIR) / "spawners";
const std::string kOciHostile = "a\"b\\c\nd\x01" "e]}{cwd} \xc3\xa9";

// A real tree (deny_read lists existing paths only): ~/.ssh a directory, ~/.netrc a file.
struct OciTree {
  fs::path root;
  Policy policy;
  SpawnRequest req;
  explicit OciTree(const std::string& leaf) {
    root = fs::temp_directory_path() / ("breakout-profile-oci-" + std::to_string(::getpid())) / leaf;
    fs::create_directories(root / "home" / ".ssh");
    fs::create_directories(root / "workspace");
    std::ofstream(root / "home" / ".netrc") << "x";
    policy.name = "p";
    policy.network = NetworkMode::kNone;
    policy.writable_roots = {"extra"};
    policy.deny_read = {"~/.ssh", "~/.netrc", "~/.missing"};
    policy.deny_write = {"workspace/.git"};
    policy.env.inherit = {"PATH", "KEEP"};
    policy.env.pinned = {{"GIT_TERMINAL_PROMPT", "0"}};
    req.policy = &policy;
    const std::string r = root.string();
    req.roots = {r, r + "/workspace", r + "/sibling", r + "/home", r + "/extra"};
    req.resolved = resolve(policy, req.roots);
    req.cwd = r + "/workspace";
    req.probe_argv = {"/bin/probe", kOciHostile};
    req.caller_env = {{"PATH", "/bin"}, {"KEEP", kOciHostile}, {"SECRET", "s"}, {"GIT_TERMINAL_PROMPT", "1"}};
  }
  ~OciTree() {
    std::error_code ec;
    fs::remove_all(root.parent_path(), ec);
  }
};

// A minimal OCI-like profile: the probe only in the config file.
std::string oci_profile(const std::string& mounts, const std::string& after = "") {
  return R"(
name = "oci"
description = "t"
requires = ["true"]
command = ["runtime", "run", "--bundle", "{spawner_dir}/{exec_id}", "{exec_id}"]
)" + after + R"(
writable_root = []
deny_read_dir = []
deny_read_file = []
[config_file]
format = "json"
path = "{spawner_dir}/{exec_id}/config.json"
items.writable = '{"destination": {path:json}, "options": ["rw"]}'
items.deny_write = '{"destination": {path:json}, "options": ["ro"]}'
items.deny_read_dir = '{"destination": {path:json}, "type": "tmpfs"}'
items.deny_read_file = '{"destination": {path:json}, "source": "/dev/null"}'
text = '{"process": {"args": {argv:json}, "env": {env:json}, "cwd": {cwd:json}}, "mounts": )" + mounts + R"(}'
[network]
none = []
)";
}

}  // namespace

// The probe's argv, the visible environment as NAME=value and the cwd parse back exactly, hostile
// bytes included; the command carries no probe, and one spawn's command, file and `after` share
// one exec id, which differs from the next spawn's.
TEST(ProfileOci, ProcessOfTheBundleIsTheProbe) {
  OciTree t(kOciHostile.substr(0, 9) + " q");
  const Profile p = parse_profile_text(oci_profile("{writable:json}", R"(after = ["runtime", "delete", "{exec_id}"])"), "t");
  auto s = make_template_spawner(p);
  const SpawnPlan plan = s->plan(t.req);
  ASSERT_EQ(plan.files.size(), 1u);
  const auto j = nlohmann::json::parse(plan.files[0].second);
  EXPECT_EQ(j["process"]["args"], nlohmann::json(t.req.probe_argv));
  EXPECT_EQ(j["process"]["cwd"], t.req.cwd);
  // Inherited and pinned (the pin wins), never SECRET.
  EXPECT_EQ(j["process"]["env"], nlohmann::json({"GIT_TERMINAL_PROMPT=0", "KEEP=" + kOciHostile, "PATH=/bin"}));
  EXPECT_EQ(std::find(plan.argv.begin(), plan.argv.end(), "/bin/probe"), plan.argv.end());
  const std::string id = plan.argv.back();
  EXPECT_EQ(id.rfind("breakout-", 0), 0u);
  EXPECT_EQ(plan.files[0].first, (spawner_dir_of(t.req.roots) / id / "config.json").string());
  EXPECT_EQ(plan.after, (std::vector<std::string>{"runtime", "delete", id}));
  EXPECT_NE(s->plan(t.req).argv.back(), id);
}

// Mounts in order: writable roots (workspace first), protected paths, then denied paths, a
// directory and a file each in its own form; a denied path not there is left out.
TEST(ProfileOci, JoinedArraysKeepOrderAndMaskByKind) {
  OciTree t("joined");
  const Profile p = parse_profile_text(oci_profile("{writable+deny_write+deny_read:json}"), "t");
  const auto file = expand_config_file(p, t.req, "id");
  ASSERT_TRUE(file.has_value());
  const auto m = nlohmann::json::parse(file->second)["mounts"];
  ASSERT_EQ(m.size(), 5u) << m.dump();
  EXPECT_EQ(m[0], nlohmann::json({{"destination", t.req.roots.workspace.string()}, {"options", {"rw"}}}));
  EXPECT_EQ(m[1]["destination"], t.req.roots.extra.string());
  EXPECT_EQ(m[2], nlohmann::json({{"destination", (t.req.roots.workspace / ".git").string()}, {"options", {"ro"}}}));
  EXPECT_EQ(m[3], nlohmann::json({{"destination", (t.req.roots.home / ".ssh").string()}, {"type", "tmpfs"}}));
  EXPECT_EQ(m[4], nlohmann::json({{"destination", (t.req.roots.home / ".netrc").string()}, {"source", "/dev/null"}}));
  // Without the kind forms, deny_read's own element form (or a string) serves both.
  const Profile plain = parse_profile_text(oci_profile("{deny_read:json}"), "t");
  EXPECT_EQ(nlohmann::json::parse(expand_config_file(plain, t.req, "id")->second)["mounts"][0]["type"], "tmpfs");
}

// One probe per spawn: in the command or in the config file, never both and never twice; the
// argv is an array of its own (never joined, never on a command line); `after` takes scalars only.
TEST(ProfileOci, TheProbeAppearsExactlyOnce) {
  const auto code_of = [](const std::string& text) -> std::string {
    try {
      (void)parse_profile_text(text, "t");
      return "";
    } catch (const Error& e) {
      return e.code();
    }
  };
  const std::string ok = oci_profile("[]");
  EXPECT_EQ(code_of(ok), "");
  std::string twice = ok;
  twice.replace(twice.find("\"{exec_id}\"]"), 12, "\"{exec_id}\", \"{argv...}\"]");
  EXPECT_EQ(code_of(twice), "duplicate-argv");
  EXPECT_EQ(code_of(oci_profile("{argv:json}")), "duplicate-argv");
  std::string none = ok;
  none.replace(none.find("{argv:json}"), 11, "[]");
  EXPECT_EQ(code_of(none), "missing-argv");
  EXPECT_EQ(code_of(oci_profile("{writable+argv:json}")), "bad-placeholder");
  EXPECT_EQ(code_of(oci_profile("{writable+env_set:json}")), "bad-placeholder");  // a table has no elements
  EXPECT_EQ(code_of(oci_profile("{writable+nope:json}")), "bad-placeholder");
  EXPECT_EQ(code_of(oci_profile("[]", R"(after = ["x", "{writable...}"])")), "bad-placeholder");
  std::string braces = ok;  // "{x+y}" outside a typed placeholder is text, as other braces are
  braces.replace(braces.find("\"run\""), 5, "\"{x+y}\"");
  EXPECT_EQ(code_of(braces), "");
  EXPECT_EQ(code_of(oci_profile("[]", R"(after = ["x", "{writable:json}"])")), "bad-placeholder");
}

// `after` runs when the launch is over, also when it timed out; its failure fails the exec,
// since the tool's state for it would be left behind.
TEST(ProfileOci, AfterRunsWhateverBecameOfTheLaunch) {
  OciTree t("after");
  const fs::path mark = t.root / "after-ran";
  const std::string profile = R"(
name = "sleeper"
description = "t"
requires = ["true"]
command = ["/bin/sh", "-c", "exec sleep 5", "{argv...}"]
after = ["/bin/sh", "-c", "echo {exec_id} > )" + mark.string() + R"("]
writable_root = []
deny_read_dir = []
deny_read_file = []
[network]
none = []
)";
  auto s = make_template_spawner(parse_profile_text(profile, "t"));
  std::atomic<bool> cancel{false};
  auto session = s->open(t.req, LaunchSpec{}, nullptr, &cancel);
  LaunchSpec limits;
  limits.timeout = std::chrono::milliseconds(200);
  const LaunchResult r = session->exec(t.req, limits);
  EXPECT_TRUE(r.timed_out);
  std::string id;
  std::ifstream(mark) >> id;
  EXPECT_EQ(id.rfind("breakout-", 0), 0u) << "after did not run";

  std::string failing = profile;
  failing.replace(failing.find("echo {exec_id} >"), 16, "exit 3; echo >");
  auto f = make_template_spawner(parse_profile_text(failing, "t"));
  auto fs_session = f->open(t.req, LaunchSpec{}, nullptr, &cancel);
  try {
    (void)fs_session->exec(t.req, limits);
    ADD_FAILURE() << "a failing after command must fail the exec";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("after command"), std::string::npos) << e.what();
  }
}

// The shipped gVisor profile: the bundle's root is the host's / read-only, the probe is the
// process, and every exec is removed under the attempt's own state root.
TEST(ProfileOci, RunscProfileWritesABundlePerExec) {
  OciTree t("runsc");
  const Profile p = load_profile_file(kOciSpawners / "runsc.toml");
  auto s = make_template_spawner(p);
  const SpawnPlan plan = s->plan(t.req);
  ASSERT_EQ(plan.files.size(), 1u);
  const auto j = nlohmann::json::parse(plan.files[0].second);
  EXPECT_EQ(j["root"], nlohmann::json({{"path", "/"}, {"readonly", true}}));
  EXPECT_EQ(j["process"]["args"], nlohmann::json(t.req.probe_argv));
  EXPECT_EQ(j["mounts"].size(), 5u);
  const std::string id = plan.argv.back();
  const std::string state = (spawner_dir_of(t.req.roots) / "state").string();
  EXPECT_EQ(plan.after, (std::vector<std::string>{"runsc", "--root", state, "delete", "--force", id}));
  EXPECT_NE(std::find(plan.argv.begin(), plan.argv.end(), "--network=none"), plan.argv.end());
  EXPECT_EQ(plan.files[0].first, (spawner_dir_of(t.req.roots) / id / "config.json").string());
}
