// Template profiles read from spawners/*.toml (docs/spawners.md): the schema, and the placeholders each template may use.
//
// Loading checks every placeholder, so a typo fails when the profile is read, never as
// literal text on a sandbox's command line; template_spawner.h expands a profile per spawn.
//
//   Profile p = load_profile_file("spawners/bwrap.toml");   // throws Error (schema codes) when invalid
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "harness/model/declared_refusal.h"
#include "harness/spawner/config_literal.h"

namespace breakout {

// A config file the spawner writes before each spawn ([config_file]): the tool's policy in its
// own format, with every placeholder a complete escaped literal ("{writable:json}").
struct ProfileConfigFile {
  std::string path;             // template, "{spawner_dir}/..." by default; "{config}" in command
  LiteralFormat format{};       // json or toml: the only placeholders its text may use
  std::string text;             // template
  // Element form of an array ("{env_unset:json}" as [{"name": "X", "mode": "deny"}, ...]), per
  // array name: writable, deny_read and deny_write elements use "{path:F}", env_names and env_unset
  // "{name:F}". Without one an element is a string literal. deny_read_dir / deny_read_file: the
  // form of a denied directory / file, where a tool masks the two differently (an OCI bundle's
  // tmpfs and /dev/null mounts); each falls back to deny_read.
  std::map<std::string, std::string> items;
};

// [cannot_express]: rules the tool cannot enforce. Each reason turns the executions the rule
// decides into skips with that reason (never into escapes or overblocks): docs/spawners.md.
struct ProfileInexpressible {
  std::optional<std::size_t> max_writable_roots;  // extra roots besides the workspace
  std::string writable_roots;   // why (policies with more roots are skipped whole)
  std::string deny_read;        // no read denial: reads of denied paths are skipped
  std::string deny_write;       // cannot protect paths inside writable roots (beyond `protects`)
  std::string env_filter;       // cannot hide caller variables: env-leak of hidden names skipped
  std::string env_pinned;       // cannot pin a value: env-pinned attempts skipped
  std::string exec_cwd;         // makes the exec's cwd writable: cwd-write outside the roots skipped
  std::string caller_fds;       // passes the caller's open fds on: fd-leak denials skipped
  // network = "proxy": an allowlist of hosts without ports. The tool is told hosts
  // (template_spawner.cc, proxy_lists), and denials through its proxy that only a port tells
  // apart from the allowed destination (model/target.h) are skipped.
  std::string proxy_ports;
  // network = "proxy": the tool's proxy is set to admit local addresses (the harness's external
  // host is in 198.18.0.0/15, RFC 2544, which some proxies count as local), so denials through
  // it to the host's loopback are skipped.
  std::string proxy_local;
};

// A tool's refusal exit ([refusal_exit]): how it says it refused the command and ran nothing.
// A run that exited with `status`, whose stderr starts with `stderr_prefix` and whose stdout
// holds no probe report is that refusal (core/refusal.h), judged from the host (docs/spawners.md).
struct ProfileRefusalExit {
  int status = 0;
  std::string stderr_prefix;  // the tool's own message prefix ("bwrap: "), never empty
};

struct Profile {
  std::string name, description, notes;
  std::filesystem::path profile_dir;         // the profile file's directory ({profile_dir})
  // {tools}: where the tool is installed: {profile_dir}/tools (the pin), or with `--spawner
  // NAME@VERSION` {profile_dir}/releases/NAME-VERSION (registry.cc).
  std::filesystem::path tools_dir;
  bool uses_tools = false;                   // {tools} appears in command, requires or version
  std::vector<std::string> requires_tools;   // on the spawner's PATH (docs/spawners.md), or absolute
  std::vector<std::string> version_argv;     // prints the version on its first line
  std::vector<std::string> command;          // the template
  // Run after every exec, also after a timeout or an interrupt (scalars only): what removes the
  // tool's per-exec state, an OCI runtime's `delete --force {exec_id}`. Empty: nothing.
  std::vector<std::string> after;
  std::vector<std::string> writable_root;    // per writable root, {path}
  std::vector<std::string> deny_read_dir;    // per denied directory, {path}
  std::vector<std::string> deny_read_file;   // per denied file, {path}
  std::vector<std::string> deny_write;       // per protected path (policy deny_write), {path}
  // What the tool write-protects inside writable roots by itself, whatever it is told (policy
  // path syntax: "workspace/.git"): a deny_write entry under one is expressed by the tool.
  std::vector<std::string> protects;
  std::vector<std::string> env_set;          // per variable the child must see, {name} {value}
  std::vector<std::string> env_unset;        // per caller variable the child must not see, {name}
  // network mode name -> flags, or -> unsupported reason
  std::map<std::string, std::vector<std::string>> network;
  std::map<std::string, std::string> network_unsupported;
  std::optional<ProfileConfigFile> config_file;
  ProfileInexpressible cannot;
  // [refuses.<mechanism>]: a kernel mechanism the tool refuses whatever the policy says
  // (model/declared_refusal.h), under the listed network modes (all when `when` is absent).
  DeclaredRefusals refuses;
  std::optional<ProfileRefusalExit> refusal_exit;
  std::vector<std::string> typed_used;  // "{x:fmt}" placeholders the templates use, rendered per spawn
  bool uses_spawner_dir = false;
  bool maps_deny_write = false;  // the command has {deny_write...} or a template {deny_write:FMT}
};

// "a+b" -> {"a", "b"}: the arrays one typed placeholder "{a+b:json}" joins, in order.
std::vector<std::string> joined_parts(const std::string& name);

// Whether the typed list `name` ("{name:json}") holds paths, whose element templates take
// "{path:F}" (the others, variable names, take "{name:F}").
bool is_path_list(const std::string& name);

// `profile_dir` is what "{profile_dir}" expands to (the file's directory; "." for text), and
// `tools_dir` what "{tools}" does (empty: profile_dir/tools).
Profile parse_profile_text(const std::string& text, const std::string& origin,
                           const std::filesystem::path& profile_dir = ".");
// The same for a document already parsed (schema::parse), so a caller that first looks at
// its "kind" (make_spawner, fuzz/profile_fuzzer.cc) does not parse the text twice.
Profile parse_profile(const toml::table& root, const std::string& origin,
                      const std::filesystem::path& profile_dir = ".", const std::filesystem::path& tools_dir = {});
Profile load_profile_file(const std::filesystem::path& file);

}  // namespace breakout
