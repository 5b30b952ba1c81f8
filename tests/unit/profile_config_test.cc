// Template features real agent sandboxes need: escaped literals, the generated config file,
// {profile_dir}, list-join into one element, per-execution "cannot express", the spawner's PATH.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "harness/core/error.h"
#include "harness/model/expectation.h"
#include "harness/model/policy.h"
#include "harness/model/target.h"
#include "harness/spawner/config_literal.h"
#include "harness/spawner/template_spawner.h"

using namespace breakout;
namespace fs = std::filesystem;

namespace {

const fs::path kSpawners = fs::path(BREAKOUT_SOURCE_DIR) / "spawners";

// Quote, backslash, newline, a C0 control, DEL, a closing bracket and brace, non-ASCII.
const std::string kHostile = "a\"b\\c\nd\x01" "e\x7f]}{cwd} \xc3\xa9";

struct ConfigRequest {
  Policy policy;
  SpawnRequest req;
  explicit ConfigRequest(const std::string& root) {
    policy.name = "p";
    policy.network = NetworkMode::kNone;
    policy.writable_roots = {"extra"};
    policy.deny_read = {"~/.ssh", "~/.missing"};
    policy.env.inherit = {"PATH", "KEEP"};
    policy.env.pinned = {{"GIT_TERMINAL_PROMPT", "0"}};
    req.policy = &policy;
    req.roots = {root, root + "/workspace", root + "/sibling", root + "/home", root + "/extra"};
    req.resolved = resolve(policy, req.roots);
    req.cwd = root + "/workspace";
    req.probe_argv = {"/bin/probe", "x"};
    req.caller_env = {{"PATH", "/bin"}, {"KEEP", "k"}, {"SECRET", "s"}, {"GIT_TERMINAL_PROMPT", "1"}};
  }
};

// A real tree for deny-read paths that must exist; removed at the end.
struct TempTree {
  fs::path root;
  explicit TempTree(const std::string& leaf) {
    root = fs::temp_directory_path() / ("breakout-profile-config-" + std::to_string(::getpid())) / leaf;
    fs::create_directories(root / "home" / ".ssh");
    fs::create_directories(root / "workspace");
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root.parent_path(), ec);
  }
};

std::string find_prefixed(const std::vector<std::string>& argv, const std::string& prefix) {
  for (const auto& a : argv)
    if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
  return "";
}

}  // namespace

// Each literal parses back, in its own format's reference parser, to exactly the input.
TEST(ConfigLiteral, StringsRoundTripInJsonAndToml) {
  const std::string j = literal_string(LiteralFormat::kJson, kHostile);
  EXPECT_EQ(nlohmann::json::parse(j).get<std::string>(), kHostile);
  const std::string t = literal_string(LiteralFormat::kToml, kHostile);
  const toml::table parsed = toml::parse("v = " + t);
  EXPECT_EQ(parsed["v"].value<std::string>().value_or("?"), kHostile);
  EXPECT_EQ(t.find('\n'), std::string::npos);  // a TOML basic string is one line
}

TEST(ConfigLiteral, ArraysAndTablesRoundTrip) {
  const std::vector<std::string> items = {"/a b", kHostile, ""};
  EXPECT_EQ(nlohmann::json::parse(literal_array(LiteralFormat::kJson, items)).get<std::vector<std::string>>(), items);
  const toml::table t = toml::parse("v = " + literal_array(LiteralFormat::kToml, items));
  ASSERT_TRUE(t["v"].as_array());
  ASSERT_EQ(t["v"].as_array()->size(), 3u);
  EXPECT_EQ(t["v"][1].value<std::string>().value_or("?"), kHostile);
  const std::map<std::string, std::string> env = {{"A=B", "x\"y"}, {"PATH", "/bin"}};
  EXPECT_EQ(nlohmann::json::parse(literal_table(LiteralFormat::kJson, env))["A=B"], "x\"y");
  const toml::table tt = toml::parse("v = " + literal_table(LiteralFormat::kToml, env));
  EXPECT_EQ(tt["v"]["A=B"].value<std::string>().value_or("?"), "x\"y");
  EXPECT_EQ(literal_array(LiteralFormat::kJson, {}), "[]");
  EXPECT_EQ(literal_table(LiteralFormat::kToml, {}), "{}");
}

TEST(ConfigLiteral, InvalidUtf8IsRefusedNotReplaced) {
  for (const std::string& bad : {std::string("\xff"), std::string("\xc3"), std::string("\xed\xa0\x80"),
                                std::string("\xc0\xaf")})
    for (auto f : {LiteralFormat::kJson, LiteralFormat::kToml}) EXPECT_THROW((void)literal_string(f, bad), Error);
  EXPECT_FALSE(literal_format("yaml").has_value());
}

// srt's whole policy goes into its settings file: writable roots (workspace first), existing
// denied paths only, hidden caller variables as credentials.envVars deny entries.
TEST(ProfileConfig, SrtSettingsFileCarriesThePolicy) {
  TempTree tree(kHostile.substr(0, 9) + " q");  // a quote, backslash and newline in every path
  const Profile p = load_profile_file(kSpawners / "srt.toml");
  EXPECT_EQ(p.profile_dir, fs::absolute(kSpawners));
  EXPECT_EQ(p.requires_tools.front(), (fs::absolute(kSpawners) / "tools/node_modules/.bin/srt").string());
  ConfigRequest f(tree.root.string());
  const auto file = expand_config_file(p, f.req);
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->first, (spawner_dir_of(f.req.roots) / "srt-settings.json").string());
  const auto j = nlohmann::json::parse(file->second);
  EXPECT_EQ(j["filesystem"]["allowWrite"],
            (std::vector<std::string>{f.req.roots.workspace.string(), f.req.roots.extra.string()}));
  EXPECT_EQ(j["filesystem"]["denyRead"], std::vector<std::string>{(f.req.roots.home / ".ssh").string()});
  EXPECT_EQ(j["network"]["allowedDomains"].size(), 0u);
  // SECRET is the only caller variable neither inherited nor pinned.
  ASSERT_EQ(j["credentials"]["envVars"].size(), 1u);
  EXPECT_EQ(j["credentials"]["envVars"][0]["name"], "SECRET");
  EXPECT_EQ(j["credentials"]["envVars"][0]["mode"], "deny");
  // The command names the file, and the plan writes it into the spawner's own directory.
  const auto argv = expand_profile(p, f.req);
  EXPECT_EQ(argv[std::find(argv.begin(), argv.end(), "--settings") - argv.begin() + 1], file->first);
  auto s = make_template_spawner(p);
  const SpawnPlan plan = s->plan(f.req);
  EXPECT_EQ(plan.scratch_dir, spawner_dir_of(f.req.roots).string());
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_EQ(plan.files[0], *file);
  // Outside the judged tree: nothing the tool keeps there is charged to the probe.
  EXPECT_FALSE(path_within(spawner_dir_of(f.req.roots), f.req.roots.tree));
}

// Codex takes each -c value as TOML: the writable roots are one element holding one TOML array,
// the environment filter and pins likewise; a hostile root stays one root.
TEST(ProfileConfig, CodexLinuxJoinsListsIntoOneTomlElement) {
  const Profile p = load_profile_file(kSpawners / "codex-linux.toml");
  ConfigRequest f("/t/" + kHostile);
  f.policy.network = NetworkMode::kFull;
  const auto argv = expand_profile(p, f.req);
  const toml::table roots = toml::parse("v = " + find_prefixed(argv, "sandbox_workspace_write.writable_roots="));
  ASSERT_TRUE(roots["v"].as_array());
  ASSERT_EQ(roots["v"].as_array()->size(), 2u);
  EXPECT_EQ(roots["v"][0].value<std::string>().value_or("?"), f.req.roots.workspace.string());
  EXPECT_EQ(roots["v"][1].value<std::string>().value_or("?"), f.req.roots.extra.string());
  const toml::table names = toml::parse("v = " + find_prefixed(argv, "shell_environment_policy.include_only="));
  ASSERT_EQ(names["v"].as_array()->size(), 3u);  // GIT_TERMINAL_PROMPT, KEEP, PATH (not SECRET)
  const toml::table set = toml::parse("v = " + find_prefixed(argv, "shell_environment_policy.set="));
  EXPECT_EQ(set["v"]["GIT_TERMINAL_PROMPT"].value<std::string>().value_or("?"), "0");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "sandbox_workspace_write.network_access=true"), argv.end());
  EXPECT_EQ(find_prefixed(argv, "CODEX_HOME="), spawner_dir_of(f.req.roots).string());
  EXPECT_EQ(argv[std::find(argv.begin(), argv.end(), "--") - argv.begin() + 1], "/bin/probe");
}

// network = "proxy" for an allowlist of hosts ([cannot_express] proxy_ports): Codex is told each
// host once, without its port, and the denied IP:port that shares the allowed host is left out
// (it would refuse the allowed one too); srt, whose lists take ports, is told them as they are.
TEST(ProfileConfig, CodexProxyIsToldHostsWithoutPorts) {
  const Profile p = load_profile_file(kSpawners / "codex-linux.toml");
  ConfigRequest f("/t");
  f.policy.network = NetworkMode::kProxy;
  f.req.proxy_allow = {"198.18.0.2:4000", "allowed.example", "*.allowed.example"};
  f.req.proxy_deny = {"198.18.0.2:5000", "198.19.0.2:6000", "denied.allowed.example"};
  const auto argv = expand_profile(p, f.req);
  const std::string proxy = find_prefixed(argv, "features.network_proxy=");
  ASSERT_FALSE(proxy.empty());
  const toml::table t = toml::parse("v = " + proxy);
  const toml::table* domains = t["v"]["domains"].as_table();
  ASSERT_NE(domains, nullptr) << proxy;
  std::map<std::string, std::string> got;
  for (const auto& [k, v] : *domains) got[std::string(k.str())] = v.value<std::string>().value_or("?");
  const std::map<std::string, std::string> want = {{"198.18.0.2", "allow"},        {"allowed.example", "allow"},
                                                   {"*.allowed.example", "allow"}, {"198.19.0.2", "deny"},
                                                   {"denied.allowed.example", "deny"}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(t["v"]["enabled"].value<bool>(), std::optional<bool>(true));
  EXPECT_NE(std::find(argv.begin(), argv.end(), "sandbox_workspace_write.network_access=true"), argv.end());

  const Profile srt = load_profile_file(kSpawners / "srt.toml");
  const auto file = expand_config_file(srt, f.req);
  ASSERT_TRUE(file.has_value());
  const auto settings = nlohmann::json::parse(file->second);
  EXPECT_EQ(settings["network"]["allowedDomains"], nlohmann::json(f.req.proxy_allow));
  EXPECT_EQ(settings["network"]["deniedDomains"], nlohmann::json(f.req.proxy_deny));
}

// What a host-only allowlist cannot say is a skip with its reason: through the proxy to the denied
// destination told apart by port alone, and to the host's loopback (allow_local_binding); the
// allowed destination, the name-denied one and a direct connect still run.
TEST(ProfileConfig, CodexProxySkipsOnlyWhatHostsCannotSay) {
  auto codex = make_template_spawner(load_profile_file(kSpawners / "codex-linux.toml"));
  ConfigRequest f("/w");
  f.policy.network = NetworkMode::kProxy;
  const Target denied = parse_target("net:proxy-denied");
  const Target allowed = parse_target("net:proxy-allowed");
  const Target by_name = parse_target("net:name-denied");
  const Target loopback = parse_target("net:tcp4-loopback");
  const auto port = codex->cannot_express_execution(f.policy, AttemptClass::kProxyConnect, &denied);
  ASSERT_TRUE(port.has_value());
  EXPECT_NE(port->find("apart by port"), std::string::npos);
  const auto local = codex->cannot_express_execution(f.policy, AttemptClass::kProxyConnect, &loopback);
  ASSERT_TRUE(local.has_value());
  EXPECT_NE(local->find("local addresses"), std::string::npos);
  EXPECT_FALSE(codex->cannot_express_execution(f.policy, AttemptClass::kProxyConnect, &allowed).has_value());
  EXPECT_FALSE(codex->cannot_express_execution(f.policy, AttemptClass::kProxyConnect, &by_name).has_value());
  EXPECT_FALSE(codex->cannot_express_execution(f.policy, AttemptClass::kNetConnect, &denied).has_value());
  Policy full = f.policy;
  full.network = NetworkMode::kFull;  // only network = proxy has a proxy to skip for
  EXPECT_FALSE(codex->cannot_express_execution(full, AttemptClass::kProxyConnect, &denied).has_value());
  auto srt = make_template_spawner(load_profile_file(kSpawners / "srt.toml"));
  EXPECT_FALSE(srt->cannot_express_execution(f.policy, AttemptClass::kProxyConnect, &denied).has_value());
  EXPECT_FALSE(srt->cannot_express_execution(f.policy, AttemptClass::kProxyConnect, &loopback).has_value());
}

// A rule the tool cannot express skips only the executions it decides, with the reason.
TEST(ProfileConfig, CannotExpressSkipsOnlyTheAffectedExecutions) {
  auto codex = make_template_spawner(load_profile_file(kSpawners / "codex-linux.toml"));
  ConfigRequest f("/w");
  const Target secret = parse_target("fs:~/.ssh/id_ed25519");
  const Target readable = parse_target("fs:~/readable.txt");
  const auto why = codex->cannot_express_execution(f.policy, AttemptClass::kFsRead, &secret);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("deny_read"), std::string::npos);
  EXPECT_FALSE(codex->cannot_express_execution(f.policy, AttemptClass::kFsRead, &readable).has_value());
  EXPECT_FALSE(codex->cannot_express_execution(f.policy, AttemptClass::kFsWrite, &secret).has_value());
  EXPECT_FALSE(codex->cannot_express_execution(f.policy, AttemptClass::kEnvPinned, nullptr).has_value());
  // Codex makes the exec's cwd writable (declared exec_cwd): a cwd outside is skipped, the
  // workspace control is not, and srt (which keeps the cwd read-only) declares nothing.
  const Target cwd_out = parse_target("fs:sibling");
  const Target cwd_in = parse_target("fs:workspace/cwd");
  const auto cwd_why = codex->cannot_express_execution(f.policy, AttemptClass::kCwdWrite, &cwd_out);
  ASSERT_TRUE(cwd_why.has_value());
  EXPECT_NE(cwd_why->find("cwd"), std::string::npos);
  EXPECT_FALSE(codex->cannot_express_execution(f.policy, AttemptClass::kCwdWrite, &cwd_in).has_value());

  auto srt = make_template_spawner(load_profile_file(kSpawners / "srt.toml"));
  const Target pin = parse_target("pin:exact");
  EXPECT_TRUE(srt->cannot_express_execution(f.policy, AttemptClass::kEnvPinned, &pin).has_value());
  EXPECT_FALSE(srt->cannot_express_execution(f.policy, AttemptClass::kFsRead, &secret).has_value());
  EXPECT_FALSE(srt->cannot_express_execution(f.policy, AttemptClass::kCwdWrite, &cwd_out).has_value());
  Policy no_pins = f.policy;
  no_pins.env.pinned.clear();
  EXPECT_FALSE(srt->cannot_express_execution(no_pins, AttemptClass::kEnvPinned, &pin).has_value());
  Policy full = f.policy;
  full.network = NetworkMode::kFull;  // the network mode stays a whole-policy skip
  EXPECT_TRUE(srt->cannot_express_execution(full, AttemptClass::kFsWrite, &secret).has_value());

  const Profile limited = parse_profile_text(R"(
name = "l"
description = "d"
requires = []
command = ["t", "{writable...}", "{argv...}"]
writable_root = ["{path}"]
deny_read_dir = []
deny_read_file = []
[cannot_express]
writable_roots = { max = 1, reason = "each -w replaces the last" }
env_filter = "passes the whole environment"
[network]
none = []
)", "limited");
  auto l = make_template_spawner(limited);
  EXPECT_FALSE(l->cannot_express(f.policy).has_value());
  Policy two = f.policy;
  two.writable_roots = {"extra", "sibling"};
  const auto roots_why = l->cannot_express(two);
  ASSERT_TRUE(roots_why.has_value());
  EXPECT_NE(roots_why->find("each -w replaces the last"), std::string::npos);
  const Target hidden = parse_target("env:AWS_SECRET_ACCESS_KEY");
  const Target kept = parse_target("env:KEEP");
  EXPECT_TRUE(l->cannot_express_execution(f.policy, AttemptClass::kEnvLeak, &hidden).has_value());
  EXPECT_FALSE(l->cannot_express_execution(f.policy, AttemptClass::kEnvLeak, &kept).has_value());
}

// Raw text in a config file would be unescaped: only "{name:format}" of the file's format.
TEST(ProfileConfig, ConfigTextTakesOnlyEscapedLiteralsOfItsFormat) {
  const auto with = [](const std::string& text, const std::string& extra = "") {
    return "name = \"c\"\ndescription = \"d\"\nrequires = []\ncommand = [\"t\", \"{config}\", \"{argv...}\"]\n"
           "writable_root = []\ndeny_read_dir = []\ndeny_read_file = []\n" + extra +
           "[config_file]\nformat = \"json\"\ntext = '" + text + "'\n[network]\nnone = []\n";
  };
  EXPECT_NO_THROW((void)parse_profile_text(with("{\"w\": {writable:json}, \"c\": {cwd:json}}"), "ok"));
  EXPECT_THROW((void)parse_profile_text(with("{\"c\": \"{cwd}\"}"), "raw"), Error);
  EXPECT_THROW((void)parse_profile_text(with("{\"w\": {writable:toml}}"), "format"), Error);
  EXPECT_THROW((void)parse_profile_text(with("{\"w\": {nosuch:json}}"), "unknown"), Error);
  EXPECT_THROW((void)parse_profile_text(with("{}", "kind = \"template\"\nbogus = 1\n"), "field"), Error);
  // "{config}" only where there is a config file.
  EXPECT_THROW((void)parse_profile_text(R"(
name = "n"
description = "d"
requires = []
command = ["t", "{config}", "{argv...}"]
writable_root = []
deny_read_dir = []
deny_read_file = []
[network]
none = []
)", "noconfig"), Error);
}

// `requires` is looked up on the PATH the spawner runs with, not the harness's own: a tool
// found only on the harness's PATH would pass the check and then fail every exec.
TEST(ProfileConfig, RequiresUsesTheSpawnersPath) {
  const fs::path dir = fs::temp_directory_path() / ("breakout-own-path-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path tool = dir / "breakout-only-on-harness-path";
  std::ofstream(tool) << "#!/bin/sh\n";
  fs::permissions(tool, fs::perms::owner_all);
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", (dir.string() + ":" + saved).c_str(), 1);
  const auto profile = [](const std::string& tool_name) {
    return parse_profile_text("name = \"r\"\ndescription = \"d\"\nrequires = [\"" + tool_name +
                                  "\"]\ncommand = [\"t\", \"{argv...}\"]\nwritable_root = []\n"
                                  "deny_read_dir = []\ndeny_read_file = []\n[network]\nnone = []\n",
                              "r");
  };
  const auto only_ours = make_template_spawner(profile(tool.filename().string()))->unavailable_reason();
  const auto absolute = make_template_spawner(profile(tool.string()))->unavailable_reason();
  const auto system = make_template_spawner(profile("sh"))->unavailable_reason();
  ::setenv("PATH", saved.c_str(), 1);
  fs::remove_all(dir);
  ASSERT_TRUE(only_ours.has_value());
  EXPECT_NE(only_ours->find("spawner's PATH"), std::string::npos);
  EXPECT_FALSE(absolute.has_value());
  EXPECT_FALSE(system.has_value());
}

// The Windows profiles: parsed and expanded only (no Windows host, docs/windows.md).
TEST(ProfileConfig, SrtWindowsParsesAndExpands) {
  const Profile p = load_profile_file(kSpawners / "srt-windows.toml");
  ConfigRequest f("C:/w");
  const auto argv = expand_profile(p, f.req);
  EXPECT_EQ(argv[0], "node.exe");
  EXPECT_NE(argv[1].find("sandbox-runtime/dist/cli.js"), std::string::npos);
  const auto file = expand_config_file(p, f.req);
  ASSERT_TRUE(file.has_value());
  const auto settings = nlohmann::json::parse(file->second);
  EXPECT_EQ(settings["filesystem"]["allowWrite"][1], "C:/w/extra");
  EXPECT_EQ(settings["windows"]["backend"], "srt-win");
  auto s = make_template_spawner(p);
  Policy lo = f.policy;
  lo.network = NetworkMode::kLoopback;
  EXPECT_TRUE(s->cannot_express(lo).has_value());
  lo.network = NetworkMode::kFull;
  EXPECT_TRUE(s->cannot_express(lo).has_value());
}
