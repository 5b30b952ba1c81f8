// Template profile loading, expansion and the Spawner built from a profile.
#include "harness/spawner/template_spawner.h"

#include "harness/spawner/driver_spawner.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>

#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/core/toml_schema.h"
#include "harness/platform/os.h"
#include "harness/platform/process.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

constexpr const char* kListTokens[] = {"{argv...}", "{network...}", "{writable...}",
                                       "{deny_read...}", "{env_set...}", "{env_unset...}"};
constexpr const char* kScalars[] = {"{cwd}", "{workspace}", "{home}", "{tree}"};  // expanded in every list

void append_expanded(std::vector<std::string>& out, const std::vector<std::string>& tmpl,
                     const std::map<std::string, std::string>& vars) {
  for (const auto& t : tmpl) out.push_back(substitute_placeholders(t, vars));
}

// `dst` = the path's text, reusing dst's capacity where native() already is that text.
void assign_path(std::string& dst, const fs::path& p) {
#ifndef _WIN32
  dst.assign(p.native());
#else
  dst = p.string();  // native() is a wide string there
#endif
}

// Placeholders a template element may use, so typos fail at load time. A
// placeholder is "{name}" or "{name...}" with name in [a-z_]; other braces
// (JSON in a shell snippet, say) are literal text. `extra` are the scalars only
// this list expands ("{path}" per writable root, ...): anywhere else one would
// reach the sandbox's command line as literal text (found by fuzz/profile_fuzzer).
void check_placeholders(const std::vector<std::string>& tmpl, const std::string& where, bool lists_ok,
                        std::initializer_list<std::string_view> extra = {}) {
  for (const auto& t : tmpl) {
    for (std::size_t open = t.find('{'); open != std::string::npos; open = t.find('{', open + 1)) {
      std::size_t end = open + 1;
      while (end < t.size() && (std::islower(static_cast<unsigned char>(t[end])) || t[end] == '_')) ++end;
      if (end == open + 1) continue;
      if (t.compare(end, 3, "...") == 0) end += 3;
      if (end >= t.size() || t[end] != '}') continue;
      const std::string ph = t.substr(open, end - open + 1);
      bool known = false;
      for (auto s : kScalars) known = known || ph == s;
      for (auto s : extra) known = known || ph == s;
      if (lists_ok)
        for (auto l : kListTokens) known = known || (ph == l && t == l);
      if (!known) schema::fail("bad-placeholder", where, "unknown placeholder '" + ph + "' in '" + t + "'");
    }
  }
}

class TemplateSpawner final : public Spawner {
 public:
  explicit TemplateSpawner(Profile p) : profile_(std::move(p)) {}
  std::string name() const override { return profile_.name; }
  std::string description() const override { return profile_.description; }
  std::string version() const override {
    if (profile_.version_argv.empty() || unavailable_reason()) return "";
    LaunchSpec spec;
    spec.argv = profile_.version_argv;
    spec.timeout = std::chrono::milliseconds(5000);
    spec.max_capture = 4096;
    const LaunchResult r = run_process(spec, nullptr, nullptr);
    std::string text = r.out.empty() ? r.err : r.out;
    return text.substr(0, text.find('\n'));
  }
  std::optional<std::string> unavailable_reason() const override {
    for (const auto& tool : profile_.requires_tools)
      if (!find_on_path(tool)) return tool + " is not installed (not found on PATH)";
    return std::nullopt;
  }
  std::optional<std::string> cannot_express(const Policy& policy) const override {
    const std::string mode = to_string(policy.network);
    if (auto it = profile_.network_unsupported.find(mode); it != profile_.network_unsupported.end())
      return profile_.name + " cannot express network = " + mode + ": " + it->second;
    if (!profile_.network.count(mode))
      return profile_.name + " profile has no mapping for network = " + mode;
    return std::nullopt;
  }
  SpawnPlan plan(const SpawnRequest& r) const override {
    SpawnPlan p;
    p.argv = expand_profile(profile_, r);
    for (const auto& [k, v] : r.caller_env) p.env.push_back(k + "=" + v);
    p.cwd = r.cwd;
    return p;
  }

 private:
  Profile profile_;
};

}  // namespace

Profile parse_profile_text(const std::string& text, const std::string& origin) {
  return parse_profile(schema::parse(text, origin), origin);
}

Profile parse_profile(const toml::table& root, const std::string& origin) {
  schema::only_fields(root, {"kind", "name", "description", "notes", "requires", "version", "command", "writable_root",
                             "deny_read_dir", "deny_read_file", "env_set", "env_unset", "network"},
                      origin);
  if (const auto kind = schema::optional_string(root, "kind", origin); kind && *kind != "template")
    schema::fail("bad-kind", origin, "kind must be \"template\" or \"driver\" (drivers: docs/drivers.md)");
  Profile p;
  p.name = schema::required_string(root, "name", origin);
  p.description = schema::required_string(root, "description", origin);
  p.notes = schema::optional_string(root, "notes", origin).value_or("");
  p.requires_tools = schema::string_array(root, "requires", origin, true);
  p.version_argv = schema::string_array(root, "version", origin, false);
  p.command = schema::string_array(root, "command", origin, true);
  p.writable_root = schema::string_array(root, "writable_root", origin, true);
  p.deny_read_dir = schema::string_array(root, "deny_read_dir", origin, true);
  p.deny_read_file = schema::string_array(root, "deny_read_file", origin, true);
  p.env_set = schema::string_array(root, "env_set", origin, false);
  p.env_unset = schema::string_array(root, "env_unset", origin, false);
  check_placeholders(p.command, origin + ": command", true);
  for (auto* list : {&p.writable_root, &p.deny_read_dir, &p.deny_read_file})
    check_placeholders(*list, origin, false, {"{path}"});
  check_placeholders(p.env_set, origin, false, {"{name}", "{value}"});
  check_placeholders(p.env_unset, origin, false, {"{name}"});
  // Exactly one probe per spawn: the verdict reads one probe report, and a second
  // copy would hand the probe's own argv ("{cwd}" literally) to the sandbox tool
  // as its arguments (found by fuzz/profile_fuzzer).
  const auto argv_count = std::count(p.command.begin(), p.command.end(), "{argv...}");
  if (argv_count == 0) schema::fail("missing-argv", origin, "command must contain \"{argv...}\"");
  if (argv_count > 1) schema::fail("duplicate-argv", origin, "command must contain \"{argv...}\" exactly once");
  const toml::table* net = root["network"].as_table();
  if (!net) schema::fail("missing-field", origin, "missing table [network]");
  schema::only_fields(*net, {"none", "loopback", "full"}, origin + ": network");
  for (const auto& [key, value] : *net) {
    const std::string mode(key.str());
    if (value.is_string()) {
      p.network_unsupported[mode] = *value.value<std::string>();
    } else {
      p.network[mode] = schema::string_array(*net, mode, origin + ": network", true);
      check_placeholders(p.network[mode], origin + ": network." + mode, false);
    }
  }
  return p;
}

Profile load_profile_file(const fs::path& file) {
  return parse_profile_text(schema::read_file(file.string()), file.string());
}

std::vector<std::string> expand_profile(const Profile& profile, const SpawnRequest& r) {
  check(r.policy != nullptr, "spawn request without a policy");
  // The scalars, and the per-element keys of the list being expanded ("{path}", "{name}",
  // "{value}"), in one map: each list sets its keys per element and erases them after it,
  // so the command and the other lists see the scalars only. (A copy of the scalars per
  // list, and an initializer list copying each value twice, were most of the allocations
  // of this function, called per input by fuzz/policy_model_fuzzer.cc.)
  std::map<std::string, std::string> vars;
  vars.try_emplace("{cwd}", r.cwd);
  vars.try_emplace("{workspace}", r.roots.workspace.string());
  vars.try_emplace("{home}", r.roots.home.string());
  vars.try_emplace("{tree}", r.roots.tree.string());
  // Which caller variables the child may see: inherited names, then pinned values win.
  std::map<std::string, std::string> visible;
  for (const auto& name : r.policy->env.inherit)
    if (auto it = r.caller_env.find(name); it != r.caller_env.end()) visible[name] = it->second;
  for (const auto& [name, value] : r.policy->env.pinned) visible[name] = value;

  // Room for every element a list can add, so the vector grows once.
  std::size_t most = profile.command.size() + r.probe_argv.size();
  if (auto it = profile.network.find(to_string(r.policy->network)); it != profile.network.end()) most += it->second.size();
  most += r.resolved.writable.size() * profile.writable_root.size();
  most += r.resolved.deny_read.size() * std::max(profile.deny_read_dir.size(), profile.deny_read_file.size());
  most += visible.size() * profile.env_set.size() + r.caller_env.size() * profile.env_unset.size();
  std::vector<std::string> out;
  out.reserve(most);
  for (const auto& token : profile.command) {
    if (token == "{argv...}") {
      out.insert(out.end(), r.probe_argv.begin(), r.probe_argv.end());
    } else if (token == "{network...}") {
      auto it = profile.network.find(to_string(r.policy->network));
      check(it != profile.network.end(), profile.name + ": no flags for this network mode");
      append_expanded(out, it->second, vars);
    } else if (token == "{writable...}") {
      std::string& path = vars["{path}"];
      for (const auto& w : r.resolved.writable) {
        assign_path(path, w);
        append_expanded(out, profile.writable_root, vars);
      }
      vars.erase("{path}");
    } else if (token == "{deny_read...}") {
      std::string& path = vars["{path}"];
      for (const auto& d : r.resolved.deny_read) {
        std::error_code ec;
        const auto st = fs::symlink_status(d, ec);
        if (ec || !fs::exists(st)) continue;  // nothing there to hide (docs/spawners.md)
        assign_path(path, d);
        append_expanded(out, fs::is_directory(st) ? profile.deny_read_dir : profile.deny_read_file, vars);
      }
      vars.erase("{path}");
    } else if (token == "{env_set...}") {
      std::string& name_var = vars["{name}"];
      std::string& value_var = vars["{value}"];
      for (const auto& [name, value] : visible) {
        name_var = name;
        value_var = value;
        append_expanded(out, profile.env_set, vars);
      }
      vars.erase("{name}");
      vars.erase("{value}");
    } else if (token == "{env_unset...}") {
      std::string& name_var = vars["{name}"];
      for (const auto& [name, value] : r.caller_env) {
        if (visible.count(name)) continue;
        name_var = name;
        append_expanded(out, profile.env_unset, vars);
      }
      vars.erase("{name}");
    } else {
      out.push_back(substitute_placeholders(token, vars));
    }
  }
  return out;
}

std::unique_ptr<Spawner> make_template_spawner(Profile profile) {
  return std::make_unique<TemplateSpawner>(std::move(profile));
}

std::unique_ptr<Spawner> make_spawner(const std::string& name_or_profile, const fs::path& spawners_dir) {
  if (name_or_profile == "none") return make_none_spawner();
  fs::path file = name_or_profile;
  if (file.extension() != ".toml") file = spawners_dir / (name_or_profile + ".toml");
  if (!fs::exists(file))
    throw Error("no-spawner", "no spawner '" + name_or_profile + "' (looked for " + file.string() + ")");
  const std::string text = schema::read_file(file.string());
  const toml::table root = schema::parse(text, file.string());
  if (root["kind"].value<std::string>() == std::optional<std::string>("driver"))
    return make_driver_spawner(parse_driver_profile(root, file.string(), fs::absolute(file).parent_path()));
  return make_template_spawner(parse_profile(root, file.string()));
}

std::vector<std::string> list_spawners(const fs::path& spawners_dir) {
  std::vector<std::string> names = {"none"};
  std::error_code ec;
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(spawners_dir, ec))
    if (e.path().extension() == ".toml") found.push_back(e.path().stem().string());
  std::sort(found.begin(), found.end());
  names.insert(names.end(), found.begin(), found.end());
  return names;
}

}  // namespace breakout
