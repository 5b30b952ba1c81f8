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
#include "harness/model/class_spec.h"
#include "harness/model/expectation.h"
#include "harness/platform/os.h"
#include "harness/platform/process.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

constexpr const char* kListTokens[] = {"{argv...}", "{network...}", "{writable...}",
                                       "{deny_read...}", "{env_set...}", "{env_unset...}"};
// Expanded in every list. "{config}" only where the profile has a [config_file].
constexpr const char* kScalars[] = {"{cwd}", "{workspace}", "{home}", "{tree}", "{profile_dir}", "{spawner_dir}",
                                    "{config}"};
// What "{x:json}" / "{x:toml}" may name besides the scalars: lists (arrays) and tables.
constexpr const char* kTypedLists[] = {"writable",  "deny_read", "env_names",       "env_unset",
                                       "env_set",   "env_pinned", "env_pinned_names"};

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

std::string path_text(const fs::path& p) {
  std::string s;
  assign_path(s, p);
  return s;
}

// Where a template may use placeholders and which kinds.
struct PlaceholderRules {
  bool lists = false;        // "{argv...}" and the other list tokens (command only, as whole elements)
  bool raw_scalars = true;   // "{cwd}" etc.; false in a config text, where only escaped literals are safe
  bool typed = false;        // "{x:json}", "{x:toml}"
  std::optional<LiteralFormat> only_format;  // a config text: its own format only
  bool config = false;       // "{config}" (the profile has a [config_file])
};

// Placeholders a template element may use, so typos fail at load time. A
// placeholder is "{name}", "{name...}" or "{name:format}" with name in [a-z_]; other braces
// (JSON in a shell snippet, say) are literal text. `extra` are the scalars only
// this list expands ("{path}" per writable root, ...): anywhere else one would
// reach the sandbox's command line as literal text (found by fuzz/profile_fuzzer).
// Typed placeholders used are collected in `typed_used`, so expansion renders only those.
void check_placeholders(const std::vector<std::string>& tmpl, const std::string& where, const PlaceholderRules& rules,
                        std::vector<std::string>* typed_used, bool* uses_spawner_dir,
                        std::initializer_list<std::string_view> extra = {}) {
  for (const auto& t : tmpl) {
    for (std::size_t open = t.find('{'); open != std::string::npos; open = t.find('{', open + 1)) {
      std::size_t end = open + 1;
      while (end < t.size() && (std::islower(static_cast<unsigned char>(t[end])) || t[end] == '_')) ++end;
      if (end == open + 1) continue;
      const std::string name = t.substr(open + 1, end - open - 1);
      std::string format;
      if (t.compare(end, 3, "...") == 0) {
        end += 3;
      } else if (end < t.size() && t[end] == ':') {
        std::size_t f = end + 1;
        while (f < t.size() && std::islower(static_cast<unsigned char>(t[f]))) ++f;
        format = t.substr(end + 1, f - end - 1);
        end = f;
      }
      if (end >= t.size() || t[end] != '}') continue;
      const std::string ph = t.substr(open, end - open + 1);
      if (name == "spawner_dir" && uses_spawner_dir) *uses_spawner_dir = true;
      if (!format.empty() || t[end - 1] == ':') {
        const auto f = literal_format(format);
        bool named = false;
        for (auto s : kScalars) named = named || ("{" + name + "}") == s;
        for (auto l : kTypedLists) named = named || name == l;
        if (name == "config" && !rules.config) named = false;
        if (!rules.typed || !f || !named)
          schema::fail("bad-placeholder", where, "unknown placeholder '" + ph + "' in '" + t + "'");
        if (rules.only_format && *f != *rules.only_format)
          schema::fail("bad-placeholder", where, "placeholder '" + ph + "' is not in this file's format");
        if (typed_used && std::find(typed_used->begin(), typed_used->end(), ph) == typed_used->end())
          typed_used->push_back(ph);
        continue;
      }
      bool known = false;
      if (rules.raw_scalars) {
        for (auto s : kScalars) known = known || (ph == s && (ph != "{config}" || rules.config));
        for (auto s : extra) known = known || ph == s;
      }
      if (rules.lists)
        for (auto l : kListTokens) known = known || (ph == l && t == l);
      if (!known) {
        const std::string hint = rules.raw_scalars ? "" : " (a config text takes only escaped literals: {name:format})";
        schema::fail("bad-placeholder", where, "unknown placeholder '" + ph + "' in '" + t + "'" + hint);
      }
    }
  }
}

// Which caller variables the child may see: inherited names, then pinned values win.
std::map<std::string, std::string> visible_env(const SpawnRequest& r) {
  std::map<std::string, std::string> visible;
  for (const auto& name : r.policy->env.inherit)
    if (auto it = r.caller_env.find(name); it != r.caller_env.end()) visible[name] = it->second;
  for (const auto& [name, value] : r.policy->env.pinned) visible[name] = value;
  return visible;
}

// Denied paths that exist when the spawn starts (nothing there to hide otherwise: docs/spawners.md).
bool exists_now(const fs::path& p, fs::file_status* st = nullptr) {
  std::error_code ec;
  const auto s = fs::symlink_status(p, ec);
  if (st) *st = s;
  return !ec && fs::exists(s);
}

// The scalars of one spawn, unescaped.
void add_scalars(std::map<std::string, std::string>& vars, const Profile& profile, const SpawnRequest& r) {
  vars.try_emplace("{cwd}", r.cwd);
  vars.try_emplace("{workspace}", path_text(r.roots.workspace));
  vars.try_emplace("{home}", path_text(r.roots.home));
  vars.try_emplace("{tree}", path_text(r.roots.tree));
  vars.try_emplace("{profile_dir}", path_text(profile.profile_dir));
  vars.try_emplace("{spawner_dir}", path_text(spawner_dir_of(r.roots)));
}

// "{x:fmt}" -> its literal, for the typed placeholders the profile uses (only those: expansion
// runs per input in fuzz/policy_model_fuzzer.cc). `vars` already holds the raw scalars.
void add_typed(std::map<std::string, std::string>& vars, const Profile& profile, const SpawnRequest& r,
               const std::map<std::string, std::string>& visible) {
  for (const auto& ph : profile.typed_used) {
    const auto colon = ph.find(':');
    const std::string name = ph.substr(1, colon - 1);
    const LiteralFormat f = *literal_format(ph.substr(colon + 1, ph.size() - colon - 2));
    std::string value;
    // An element template of the config file, for arrays in its format (ProfileConfigFile::items).
    const std::string* item = nullptr;
    if (profile.config_file && profile.config_file->format == f)
      if (auto it = profile.config_file->items.find(name); it != profile.config_file->items.end()) item = &it->second;
    const auto array = [&](const std::vector<std::string>& elements) {
      if (!item) return literal_array(f, elements);
      const std::string key = std::string(name == "writable" || name == "deny_read" ? "{path:" : "{name:") +
                              ph.substr(colon + 1);
      std::string out = "[";
      for (std::size_t i = 0; i < elements.size(); ++i)
        out += (i ? ", " : "") + substitute_placeholders(*item, {{key, literal_string(f, elements[i])}});
      return out + "]";
    };
    if (auto it = vars.find("{" + name + "}"); it != vars.end()) {
      value = literal_string(f, it->second);
    } else if (name == "writable") {
      std::vector<std::string> items;
      for (const auto& w : r.resolved.writable) items.push_back(path_text(w));
      value = array(items);
    } else if (name == "deny_read") {
      std::vector<std::string> items;
      for (const auto& d : r.resolved.deny_read)
        if (exists_now(d)) items.push_back(path_text(d));
      value = array(items);
    } else if (name == "env_names") {
      std::vector<std::string> items;
      for (const auto& [k, v] : visible) items.push_back(k);
      value = array(items);
    } else if (name == "env_unset") {
      std::vector<std::string> items;
      for (const auto& [k, v] : r.caller_env)
        if (!visible.count(k)) items.push_back(k);
      value = array(items);
    } else if (name == "env_pinned_names") {
      std::vector<std::string> items;
      for (const auto& [k, v] : r.policy->env.pinned) items.push_back(k);
      value = array(items);
    } else if (name == "env_set") {
      value = literal_table(f, visible);
    } else if (name == "env_pinned") {
      value = literal_table(f, r.policy->env.pinned);
    }
    vars[ph] = std::move(value);
  }
}

// The tool named by a `requires` entry, looked up on the PATH the spawner itself runs with
// (the caller environment's, caller_base_env), the PATH run_process resolves command[0] on.
std::optional<std::string> find_for_spawner(const std::string& tool) {
#ifdef _WIN32
  const char sep = ';';
#else
  const char sep = ':';
#endif
  if (tool.find('/') != std::string::npos || tool.find('\\') != std::string::npos) return find_on_path(tool);
  const auto env = caller_base_env(fs::path());
  const auto it = env.find("PATH");
  const std::string path = it == env.end() ? "" : it->second;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = path.find(sep, start);
    const std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty())
      if (auto hit = find_on_path((fs::path(dir) / tool).string())) return hit;
    if (end == std::string::npos) return std::nullopt;
    start = end + 1;
  }
}

PolicyField decided_by(AttemptClass k) { return class_spec(k).decided_by; }

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
      if (!find_for_spawner(tool))
        return tool + " is not installed (not found on the spawner's PATH, docs/spawners.md)";
    return std::nullopt;
  }
  std::optional<std::string> cannot_express(const Policy& policy) const override {
    const std::string mode = to_string(policy.network);
    if (auto it = profile_.network_unsupported.find(mode); it != profile_.network_unsupported.end())
      return profile_.name + " cannot express network = " + mode + ": " + it->second;
    if (!profile_.network.count(mode))
      return profile_.name + " profile has no mapping for network = " + mode;
    const auto& c = profile_.cannot;
    if (c.max_writable_roots && policy.writable_roots.size() > *c.max_writable_roots)
      return profile_.name + " cannot express " + std::to_string(policy.writable_roots.size()) +
             " extra writable roots (at most " + std::to_string(*c.max_writable_roots) + "): " + c.writable_roots;
    return std::nullopt;
  }
  // Per execution: only the attempts a missing rule decides are skipped; the rest of the
  // policy still runs (a tool without read denial is still judged on its writes).
  std::optional<std::string> cannot_express_execution(const Policy& policy, AttemptClass klass,
                                                      const Target* target) const override {
    if (auto why = cannot_express(policy)) return why;
    const auto& c = profile_.cannot;
    const auto denied = [&] { return expect(klass, target, policy, placeholder_roots()).value == Expected::kDenied; };
    if (!c.deny_read.empty() && !policy.deny_read.empty() && decided_by(klass) == PolicyField::kDenyRead && denied())
      return profile_.name + " cannot express deny_read: " + c.deny_read;
    if (!c.env_filter.empty() && decided_by(klass) == PolicyField::kEnvInherit && denied())
      return profile_.name + " cannot hide caller variables: " + c.env_filter;
    if (!c.env_pinned.empty() && decided_by(klass) == PolicyField::kEnvPinned && !policy.env.pinned.empty())
      return profile_.name + " cannot pin variables: " + c.env_pinned;
    return std::nullopt;
  }
  SpawnPlan plan(const SpawnRequest& r) const override {
    SpawnPlan p;
    p.argv = expand_profile(profile_, r);
    for (const auto& [k, v] : r.caller_env) p.env.push_back(k + "=" + v);
    p.cwd = r.cwd;
    if (profile_.uses_spawner_dir || profile_.config_file) p.scratch_dir = path_text(spawner_dir_of(r.roots));
    if (auto file = expand_config_file(profile_, r)) p.files.push_back(std::move(*file));
    return p;
  }

 private:
  Profile profile_;
};

}  // namespace

Profile parse_profile_text(const std::string& text, const std::string& origin, const fs::path& profile_dir) {
  return parse_profile(schema::parse(text, origin), origin, profile_dir);
}

namespace {

ProfileConfigFile parse_config_file(const toml::table& t, const std::string& where) {
  schema::only_fields(t, {"path", "format", "text", "items"}, where);
  ProfileConfigFile c;
  const std::string format = schema::required_string(t, "format", where);
  const auto f = literal_format(format);
  if (!f) schema::fail("bad-format", where, "format must be \"json\" or \"toml\", not '" + format + "'");
  c.format = *f;
  c.path = schema::optional_string(t, "path", where).value_or("{spawner_dir}/config." + format);
  c.text = schema::required_string(t, "text", where);
  if (const toml::node* items = t.get("items")) {
    if (!items->is_table()) schema::fail("bad-type", where + ".items", "must be a table of element templates");
    schema::only_fields(*items->as_table(), {"writable", "deny_read", "env_names", "env_unset"}, where + ".items");
    for (const auto& [key, value] : *items->as_table()) {
      const std::string name(key.str());
      if (!value.is_string()) schema::fail("bad-type", where + ".items." + name, "must be a string");
      const std::string item = *value.value<std::string>();
      const bool paths = name == "writable" || name == "deny_read";
      // Only the element's own escaped key, in the file's format.
      const std::string own = std::string(paths ? "{path:" : "{name:") + format + "}";
      for (std::size_t open = item.find('{'); open != std::string::npos; open = item.find('{', open + 1)) {
        const std::size_t close = item.find('}', open);
        const std::string ph = item.substr(open, close == std::string::npos ? std::string::npos : close - open + 1);
        if (ph.size() > 2 && std::islower(static_cast<unsigned char>(ph[1])) && ph.find(':') != std::string::npos &&
            ph != own)
          schema::fail("bad-placeholder", where + ".items." + name, "element templates take only " + own + ", not " + ph);
      }
      c.items[name] = item;
    }
  }
  return c;
}

ProfileInexpressible parse_inexpressible(const toml::table& t, const std::string& where) {
  schema::only_fields(t, {"writable_roots", "deny_read", "env_filter", "env_pinned"}, where);
  ProfileInexpressible c;
  c.deny_read = schema::optional_string(t, "deny_read", where).value_or("");
  c.env_filter = schema::optional_string(t, "env_filter", where).value_or("");
  c.env_pinned = schema::optional_string(t, "env_pinned", where).value_or("");
  if (const toml::node* w = t.get("writable_roots")) {
    const toml::table* wt = w->as_table();
    if (!wt) schema::fail("bad-type", where + ".writable_roots", "must be a table { max = N, reason = \"...\" }");
    schema::only_fields(*wt, {"max", "reason"}, where + ".writable_roots");
    const auto max = schema::optional_int(*wt, "max", where + ".writable_roots");
    if (!max || *max < 0) schema::fail("bad-value", where + ".writable_roots", "max must be an integer >= 0");
    c.max_writable_roots = static_cast<std::size_t>(*max);
    c.writable_roots = schema::required_string(*wt, "reason", where + ".writable_roots");
  }
  return c;
}

}  // namespace

Profile parse_profile(const toml::table& root, const std::string& origin, const fs::path& profile_dir) {
  schema::only_fields(root, {"kind", "name", "description", "notes", "requires", "version", "command", "writable_root",
                             "deny_read_dir", "deny_read_file", "env_set", "env_unset", "network", "config_file",
                             "cannot_express"},
                      origin);
  if (const auto kind = schema::optional_string(root, "kind", origin); kind && *kind != "template")
    schema::fail("bad-kind", origin, "kind must be \"template\" or \"driver\" (drivers: docs/drivers.md)");
  Profile p;
  p.profile_dir = profile_dir;
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
  if (const toml::node* c = root.get("config_file")) {
    if (!c->is_table()) schema::fail("bad-type", origin + ": config_file", "must be a table");
    p.config_file = parse_config_file(*c->as_table(), origin + ": config_file");
  }
  if (const toml::node* c = root.get("cannot_express")) {
    if (!c->is_table()) schema::fail("bad-type", origin + ": cannot_express", "must be a table");
    p.cannot = parse_inexpressible(*c->as_table(), origin + ": cannot_express");
  }
  // `requires` and `version` run before any attempt: only the profile's own directory.
  const std::map<std::string, std::string> dir_var = {{"{profile_dir}", path_text(profile_dir)}};
  for (auto* list : {&p.requires_tools, &p.version_argv})
    for (auto& t : *list) t = substitute_placeholders(t, dir_var);
  PlaceholderRules command_rules;
  command_rules.lists = true;
  command_rules.typed = true;
  command_rules.config = p.config_file.has_value();
  check_placeholders(p.command, origin + ": command", command_rules, &p.typed_used, &p.uses_spawner_dir);
  PlaceholderRules plain;
  plain.config = p.config_file.has_value();
  for (auto* list : {&p.writable_root, &p.deny_read_dir, &p.deny_read_file})
    check_placeholders(*list, origin, plain, nullptr, &p.uses_spawner_dir, {"{path}"});
  check_placeholders(p.env_set, origin, plain, nullptr, &p.uses_spawner_dir, {"{name}", "{value}"});
  check_placeholders(p.env_unset, origin, plain, nullptr, &p.uses_spawner_dir, {"{name}"});
  if (p.config_file) {
    PlaceholderRules path_rules;  // a path: raw scalars, never "{config}" itself
    check_placeholders({p.config_file->path}, origin + ": config_file.path", path_rules, nullptr, &p.uses_spawner_dir);
    PlaceholderRules text_rules;
    text_rules.raw_scalars = false;
    text_rules.typed = true;
    text_rules.only_format = p.config_file->format;
    check_placeholders({p.config_file->text}, origin + ": config_file.text", text_rules, &p.typed_used,
                       &p.uses_spawner_dir);
  }
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
      PlaceholderRules net_rules;
      net_rules.typed = true;
      net_rules.config = p.config_file.has_value();
      check_placeholders(p.network[mode], origin + ": network." + mode, net_rules, &p.typed_used,
                         &p.uses_spawner_dir);
    }
  }
  return p;
}

Profile load_profile_file(const fs::path& file) {
  return parse_profile_text(schema::read_file(file.string()), file.string(), fs::absolute(file).parent_path());
}

fs::path spawner_dir_of(const TreeRoots& roots) {
  fs::path dir = roots.tree;
  dir += ".spawner";
  return dir;
}

namespace {

// Scalars, typed literals and "{config}" of one spawn (the per-list keys are added by the caller).
std::map<std::string, std::string> spawn_vars(const Profile& profile, const SpawnRequest& r,
                                              const std::map<std::string, std::string>& visible) {
  std::map<std::string, std::string> vars;
  add_scalars(vars, profile, r);
  if (profile.config_file) {
    std::map<std::string, std::string> path_vars = vars;
    vars.try_emplace("{config}", substitute_placeholders(profile.config_file->path, path_vars));
  }
  add_typed(vars, profile, r, visible);
  return vars;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> expand_config_file(const Profile& profile, const SpawnRequest& r) {
  if (!profile.config_file) return std::nullopt;
  check(r.policy != nullptr, "spawn request without a policy");
  const auto vars = spawn_vars(profile, r, visible_env(r));
  return std::pair{vars.at("{config}"), substitute_placeholders(profile.config_file->text, vars)};
}

std::vector<std::string> expand_profile(const Profile& profile, const SpawnRequest& r) {
  check(r.policy != nullptr, "spawn request without a policy");
  // Which caller variables the child may see: inherited names, then pinned values win.
  const std::map<std::string, std::string> visible = visible_env(r);
  // The scalars, and the per-element keys of the list being expanded ("{path}", "{name}",
  // "{value}"), in one map: each list sets its keys per element and erases them after it,
  // so the command and the other lists see the scalars only. (A copy of the scalars per
  // list, and an initializer list copying each value twice, were most of the allocations
  // of this function, called per input by fuzz/policy_model_fuzzer.cc.)
  std::map<std::string, std::string> vars = spawn_vars(profile, r, visible);

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
        fs::file_status st;
        if (!exists_now(d, &st)) continue;  // nothing there to hide (docs/spawners.md)
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

}  // namespace breakout
