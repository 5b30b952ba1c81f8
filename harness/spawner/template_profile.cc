// Template profiles read and checked: the schema of spawners/*.toml and the placeholders each template may use.
#include "harness/spawner/template_profile.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>

#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/core/toml_schema.h"
#include "harness/model/expectation.h"
#include "harness/model/mechanism.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

constexpr const char* kListTokens[] = {"{argv...}", "{network...}", "{writable...}", "{deny_read...}",
                                       "{deny_write...}", "{env_set...}", "{env_unset...}"};
// Expanded in every list. "{config}" only where the profile has a [config_file].
constexpr const char* kScalars[] = {"{cwd}", "{workspace}", "{home}", "{tree}", "{profile_dir}", "{tools}",
                                    "{spawner_dir}", "{config}", "{exec_id}"};
// What "{x:json}" / "{x:toml}" may name besides the scalars: arrays, which "{a+b:json}" joins...
constexpr const char* kTypedArrays[] = {"writable",  "deny_read",        "deny_write",  "argv",      "env",
                                        "env_names", "env_unset",        "env_pinned_names", "proxy_allow",
                                        "proxy_deny"};
// ...and tables.
constexpr const char* kTypedTables[] = {"env_set", "env_pinned", "proxy_rules"};

bool is_typed_array(std::string_view name) {
  return std::any_of(std::begin(kTypedArrays), std::end(kTypedArrays), [&](const char* a) { return name == a; });
}

// "a+b": every part an array (a table or a scalar has no elements to join).
bool is_joined_arrays(const std::string& name) {
  const auto parts = joined_parts(name);
  return std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return is_typed_array(p); });
}

// Where a template may use placeholders and which kinds.
struct PlaceholderRules {
  bool lists = false;        // "{argv...}" and the other list tokens (command only, as whole elements)
  bool raw_scalars = true;   // "{cwd}" etc.; false in a config text, where only escaped literals are safe
  bool typed = false;        // "{x:json}", "{x:toml}"
  std::optional<LiteralFormat> only_format;  // a config text: its own format only
  bool config = false;       // "{config}" (the profile has a [config_file])
  bool argv_literal = false;  // "{argv:F}": the probe's argv as one array (a config text only)
};

// Placeholders a template element may use, so typos fail at load time. A
// placeholder is "{name}", "{name...}" or "{name:format}" with name in [a-z_] ("a+b" in the
// last form: arrays joined); other braces
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
      while (end < t.size() && (std::islower(static_cast<unsigned char>(t[end])) || t[end] == '_' || t[end] == '+')) ++end;
      if (end == open + 1) continue;
      const std::string name = t.substr(open + 1, end - open - 1);
      // "a+b" names joined arrays, so only as a typed placeholder ("{a+b:json}"); "{x+y}" stays text.
      if (name.find('+') != std::string::npos && (end >= t.size() || t[end] != ':')) continue;
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
        for (auto l : kTypedTables) named = named || name == l;
        named = named || is_joined_arrays(name);
        if (name == "config" && !rules.config) named = false;
        // The probe's argv is one array of its own, in a config file only (one probe per spawn, below).
        const bool argv = ("+" + name + "+").find("+argv+") != std::string::npos;
        if (argv && (!rules.argv_literal || name != "argv")) named = false;
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
    schema::only_fields(*items->as_table(),
                        {"writable", "deny_read", "deny_read_dir", "deny_read_file", "deny_write", "env_names", "env_unset"},
                        where + ".items");
    for (const auto& [key, value] : *items->as_table()) {
      const std::string name(key.str());
      if (!value.is_string()) schema::fail("bad-type", where + ".items." + name, "must be a string");
      const std::string item = *value.value<std::string>();
      const bool paths = is_path_list(name);
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
  schema::only_fields(t, {"writable_roots", "deny_read", "deny_write", "env_filter", "env_pinned", "exec_cwd",
                          "caller_fds", "proxy_ports", "proxy_local"},
                     where);
  ProfileInexpressible c;
  c.deny_read = schema::optional_string(t, "deny_read", where).value_or("");
  c.deny_write = schema::optional_string(t, "deny_write", where).value_or("");
  c.env_filter = schema::optional_string(t, "env_filter", where).value_or("");
  c.env_pinned = schema::optional_string(t, "env_pinned", where).value_or("");
  c.exec_cwd = schema::optional_string(t, "exec_cwd", where).value_or("");
  c.caller_fds = schema::optional_string(t, "caller_fds", where).value_or("");
  c.proxy_ports = schema::optional_string(t, "proxy_ports", where).value_or("");
  c.proxy_local = schema::optional_string(t, "proxy_local", where).value_or("");
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

// The TOML side of the shared checks (model/declared_refusal.h): types here, the rest there.
DeclaredRefusals parse_refusals(const toml::table& t, const std::string& where) {
  DeclaredRefusals out;
  for (const auto& [key, value] : t) {
    const std::string name(key.str());
    const std::string here = where + "." + name;
    if (!mechanism_from(name)) schema::fail("bad-mechanism", here, "unknown mechanism (known: " + mechanism_names() + ")");
    if (!value.is_table()) schema::fail("bad-type", here, "must be a table { when = [...], why = \"...\" }");
    const toml::table& r = *value.as_table();
    for (const auto& [k, v] : r)
      if (!is_refusal_key(k.str()))
        schema::fail("unknown-field", here, "unknown field '" + std::string(k.str()) + "' (allowed: " + refusal_keys() + ")");
    DeclaredRefusal refusal;
    refusal.why = schema::required_string(r, "why", here);
    refusal.when = schema::string_array(r, "when", here, false);
    if (const auto problem = check_refusal(name, refusal)) schema::fail(problem->code, here + problem->where, problem->message);
    out[name] = std::move(refusal);
  }
  return out;
}

ProfileRefusalExit parse_refusal_exit(const toml::table& t, const std::string& where) {
  schema::only_fields(t, {"status", "stderr"}, where);
  ProfileRefusalExit e;
  const auto status = schema::optional_int(t, "status", where);
  if (!status || *status < 1 || *status > 255) schema::fail("bad-value", where, "status must be an exit status in [1, 255]");
  e.status = static_cast<int>(*status);
  e.stderr_prefix = schema::required_string(t, "stderr", where);
  // Without its message an exit status alone cannot tell the tool's refusal from a probe's exit.
  if (e.stderr_prefix.empty()) schema::fail("bad-value", where, "stderr must be the tool's own message prefix");
  return e;
}

}  // namespace

std::vector<std::string> joined_parts(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t plus; (plus = name.find('+', start)) != std::string::npos; start = plus + 1)
    parts.push_back(name.substr(start, plus - start));
  parts.push_back(name.substr(start));
  return parts;
}

bool is_path_list(const std::string& name) {
  return name == "writable" || name == "deny_read" || name == "deny_read_dir" || name == "deny_read_file" ||
         name == "deny_write";
}

Profile parse_profile_text(const std::string& text, const std::string& origin, const fs::path& profile_dir) {
  return parse_profile(schema::parse(text, origin), origin, profile_dir);
}

Profile parse_profile(const toml::table& root, const std::string& origin, const fs::path& profile_dir,
                      const fs::path& tools_dir) {
  schema::only_fields(root, {"kind", "name", "description", "notes", "requires", "version", "command", "after", "writable_root",
                             "deny_read_dir", "deny_read_file", "deny_write", "protects", "env_set", "env_unset",
                             "network", "config_file", "cannot_express", "refuses", "refusal_exit"},
                      origin);
  if (const auto kind = schema::optional_string(root, "kind", origin); kind && *kind != "template")
    schema::fail("bad-kind", origin, "kind must be \"template\" or \"driver\" (drivers: docs/drivers.md)");
  Profile p;
  p.profile_dir = profile_dir;
  p.tools_dir = tools_dir.empty() ? profile_dir / "tools" : tools_dir;
  p.name = schema::required_string(root, "name", origin);
  p.description = schema::required_string(root, "description", origin);
  p.notes = schema::optional_string(root, "notes", origin).value_or("");
  p.requires_tools = schema::string_array(root, "requires", origin, true);
  p.version_argv = schema::string_array(root, "version", origin, false);
  p.command = schema::string_array(root, "command", origin, true);
  p.after = schema::string_array(root, "after", origin, false);
  p.writable_root = schema::string_array(root, "writable_root", origin, true);
  p.deny_read_dir = schema::string_array(root, "deny_read_dir", origin, true);
  p.deny_read_file = schema::string_array(root, "deny_read_file", origin, true);
  p.deny_write = schema::string_array(root, "deny_write", origin, false);
  p.protects = schema::string_array(root, "protects", origin, false);
  for (const auto& path : p.protects) {
    try {
      (void)resolve_policy_path(path, placeholder_roots());
    } catch (const Error& e) {
      schema::fail("bad-path", origin + ": protects", e.what());
    }
  }
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
  if (const toml::node* e = root.get("refusal_exit")) {
    if (!e->is_table()) schema::fail("bad-type", origin + ": refusal_exit", "must be a table { status = N, stderr = \"...\" }");
    p.refusal_exit = parse_refusal_exit(*e->as_table(), origin + ": refusal_exit");
  }
  if (const toml::node* r = root.get("refuses")) {
    if (!r->is_table()) schema::fail("bad-type", origin + ": refuses", "must be a table of mechanisms");
    p.refuses = parse_refusals(*r->as_table(), origin + ": refuses");
  }
  // `requires` and `version` run before any attempt: only the profile's own directory.
  const std::map<std::string, std::string> dir_var = {{"{profile_dir}", profile_dir.string()},
                                                      {"{tools}", p.tools_dir.string()}};
  for (auto* list : {&p.requires_tools, &p.version_argv, &p.command})
    for (const auto& t : *list) p.uses_tools = p.uses_tools || t.find("{tools}") != std::string::npos;
  for (auto* list : {&p.requires_tools, &p.version_argv})
    for (auto& t : *list) t = substitute_placeholders(t, dir_var);
  PlaceholderRules command_rules;
  command_rules.lists = true;
  command_rules.typed = true;
  command_rules.config = p.config_file.has_value();
  check_placeholders(p.command, origin + ": command", command_rules, &p.typed_used, &p.uses_spawner_dir);
  PlaceholderRules plain;
  plain.config = p.config_file.has_value();
  for (auto* list : {&p.writable_root, &p.deny_read_dir, &p.deny_read_file, &p.deny_write})
    check_placeholders(*list, origin, plain, nullptr, &p.uses_spawner_dir, {"{path}"});
  check_placeholders(p.env_set, origin, plain, nullptr, &p.uses_spawner_dir, {"{name}", "{value}"});
  check_placeholders(p.env_unset, origin, plain, nullptr, &p.uses_spawner_dir, {"{name}"});
  check_placeholders(p.after, origin + ": after", plain, nullptr, &p.uses_spawner_dir);
  if (p.config_file) {
    PlaceholderRules path_rules;  // a path: raw scalars, never "{config}" itself
    check_placeholders({p.config_file->path}, origin + ": config_file.path", path_rules, nullptr, &p.uses_spawner_dir);
    PlaceholderRules text_rules;
    text_rules.raw_scalars = false;
    text_rules.typed = true;
    text_rules.only_format = p.config_file->format;
    text_rules.argv_literal = true;
    check_placeholders({p.config_file->text}, origin + ": config_file.text", text_rules, &p.typed_used,
                       &p.uses_spawner_dir);
  }
  // Exactly one probe per spawn: the verdict reads one probe report, and a second
  // copy would hand the probe's own argv ("{cwd}" literally) to the sandbox tool
  // as its arguments (found by fuzz/profile_fuzzer). The probe is either on the command line or
  // in the config file (an OCI bundle's process.args: "{argv:json}"), never in both.
  auto argv_count = std::count(p.command.begin(), p.command.end(), "{argv...}");
  if (p.config_file)
    for (auto at = p.config_file->text.find("{argv:"); at != std::string::npos; at = p.config_file->text.find("{argv:", at + 1))
      ++argv_count;
  if (argv_count == 0)
    schema::fail("missing-argv", origin, "command must contain \"{argv...}\" (or its config file \"{argv:FORMAT}\")");
  if (argv_count > 1)
    schema::fail("duplicate-argv", origin,
                 "the probe must appear exactly once: \"{argv...}\" in command or \"{argv:FORMAT}\" in the config file");
  const toml::table* net = root["network"].as_table();
  if (!net) schema::fail("missing-field", origin, "missing table [network]");
  schema::only_fields(*net, {"none", "loopback", "full", "proxy"}, origin + ": network");
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
  p.maps_deny_write = std::count(p.command.begin(), p.command.end(), "{deny_write...}") > 0 ||
                      std::any_of(p.typed_used.begin(), p.typed_used.end(),
                                  [](const std::string& ph) { return ph.rfind("{deny_write:", 0) == 0; });
  return p;
}

Profile load_profile_file(const fs::path& file) {
  return parse_profile_text(schema::read_file(file.string()), file.string(), fs::absolute(file).parent_path());
}

}  // namespace breakout
