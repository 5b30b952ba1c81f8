// The Spawner built from a template profile (template_profile.h): the command line and config file of each spawn.
#include "harness/spawner/template_spawner.h"

#include <algorithm>
#include <functional>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation.h"
#include "harness/model/target.h"
#include "harness/platform/os.h"
#include "harness/platform/process.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

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

// An allowlist entry without its port: "198.18.0.2:8080" -> "198.18.0.2", "[::1]:80" -> "[::1]";
// a name or a bare address stays as it is.
std::string host_of(const std::string& entry) {
  if (!entry.empty() && entry.front() == '[') return entry.substr(0, entry.find(']') + 1);
  if (std::count(entry.begin(), entry.end(), ':') == 1) return entry.substr(0, entry.find(':'));
  return entry;
}

// The proxy's allow and deny entries as this tool is told them. A tool whose allowlist has no
// ports ([cannot_express] proxy_ports) is told hosts, and a denied entry whose host is allowed is
// left out: without its port it would deny the allowed destination too. The denials that entry
// decided are skipped with the profile's reason (cannot_express_execution), never judged.
struct ProxyLists {
  std::vector<std::string> allow, deny;
};
ProxyLists proxy_lists(const Profile& profile, const SpawnRequest& r) {
  if (profile.cannot.proxy_ports.empty()) return {r.proxy_allow, r.proxy_deny};
  const auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  ProxyLists told;
  for (const auto& a : r.proxy_allow)
    if (const auto h = host_of(a); !has(told.allow, h)) told.allow.push_back(h);
  for (const auto& d : r.proxy_deny)
    if (const auto h = host_of(d); !has(told.allow, h) && !has(told.deny, h)) told.deny.push_back(h);
  return told;
}

// The scalars of one spawn, unescaped.
void add_scalars(std::map<std::string, std::string>& vars, const Profile& profile, const SpawnRequest& r,
                 const std::string& exec_id) {
  vars.try_emplace("{cwd}", r.cwd);
  vars.try_emplace("{exec_id}", exec_id);
  vars.try_emplace("{workspace}", path_text(r.roots.workspace));
  vars.try_emplace("{home}", path_text(r.roots.home));
  vars.try_emplace("{tree}", path_text(r.roots.tree));
  vars.try_emplace("{profile_dir}", path_text(profile.profile_dir));
  vars.try_emplace("{tools}", path_text(profile.tools_dir));
  vars.try_emplace("{spawner_dir}", path_text(spawner_dir_of(r.roots)));
}

// One element of a typed array, before rendering: its text, and for deny_read whether it is a
// directory (an element template may mask the two differently: items.deny_read_dir / _file).
struct Element {
  std::string text;
  bool dir = false;
};

// The elements of the typed array `name` for this spawn; nullopt when `name` is no array.
std::optional<std::vector<Element>> array_of(const std::string& name, const SpawnRequest& r,
                                             const std::map<std::string, std::string>& visible,
                                             const std::function<const ProxyLists&()>& proxy) {
  std::vector<Element> items;
  const auto texts = [&](const auto& values) {
    for (const auto& v : values) items.push_back({std::string(v), false});
  };
  if (name == "writable") {
    for (const auto& w : r.resolved.writable) items.push_back({path_text(w), true});
  } else if (name == "deny_read") {
    for (const auto& d : r.resolved.deny_read) {
      fs::file_status st;
      if (exists_now(d, &st)) items.push_back({path_text(d), fs::is_directory(st)});
    }
  } else if (name == "deny_write") {  // every entry: a tool may protect a path that is not there yet
    for (const auto& d : r.resolved.deny_write) items.push_back({path_text(d), false});
  } else if (name == "argv") {
    texts(r.probe_argv);
  } else if (name == "env") {  // the child's environment as NAME=value (an OCI process.env)
    for (const auto& [k, v] : visible) items.push_back({k + "=" + v, false});
  } else if (name == "proxy_allow") {  // network = "proxy" only; [] otherwise
    texts(proxy().allow);
  } else if (name == "proxy_deny") {
    texts(proxy().deny);
  } else if (name == "env_names") {
    for (const auto& [k, v] : visible) items.push_back({k, false});
  } else if (name == "env_unset") {
    for (const auto& [k, v] : r.caller_env)
      if (!visible.count(k)) items.push_back({k, false});
  } else if (name == "env_pinned_names") {
    for (const auto& [k, v] : r.policy->env.pinned) items.push_back({k, false});
  } else {
    return std::nullopt;
  }
  return items;
}

// The element template of `name`'s element `e` in format `f`, or nullptr (a string literal).
const std::string* item_template(const Profile& profile, LiteralFormat f, const std::string& name, const Element& e) {
  if (!profile.config_file || profile.config_file->format != f) return nullptr;
  const auto& items = profile.config_file->items;
  if (name == "deny_read")
    if (auto it = items.find(e.dir ? "deny_read_dir" : "deny_read_file"); it != items.end()) return &it->second;
  const auto it = items.find(name);
  return it == items.end() ? nullptr : &it->second;
}

// "{x:fmt}" -> its literal, for the typed placeholders the profile uses (only those: expansion
// runs per input in fuzz/policy_model_fuzzer.cc). `vars` already holds the raw scalars.
// "{a+b:fmt}" is one array: a's elements, then b's.
void add_typed(std::map<std::string, std::string>& vars, const Profile& profile, const SpawnRequest& r,
               const std::map<std::string, std::string>& visible) {
  std::optional<ProxyLists> told;  // once per spawn, for whichever of the proxy placeholders it uses
  const std::function<const ProxyLists&()> proxy = [&]() -> const ProxyLists& {
    if (!told) told = proxy_lists(profile, r);
    return *told;
  };
  for (const auto& ph : profile.typed_used) {
    const auto colon = ph.find(':');
    const std::string name = ph.substr(1, colon - 1);
    const std::string format = ph.substr(colon + 1, ph.size() - colon - 2);
    const LiteralFormat f = *literal_format(format);
    std::string value;
    if (auto it = vars.find("{" + name + "}"); it != vars.end()) {
      value = literal_string(f, it->second);
    } else if (name == "proxy_rules") {  // one table: each entry -> "allow" or "deny"
      std::map<std::string, std::string> rules;
      for (const auto& a : proxy().allow) rules[a] = "allow";
      for (const auto& d : proxy().deny) rules.try_emplace(d, "deny");
      value = literal_table(f, rules);
    } else if (name == "env_set") {
      value = literal_table(f, visible);
    } else if (name == "env_pinned") {
      value = literal_table(f, r.policy->env.pinned);
    } else {
      value = "[";
      bool first = true;
      for (const auto& part : joined_parts(name)) {
        const auto elements = array_of(part, r, visible, proxy);
        check(elements.has_value(), "template: " + ph + " names no array");  // the profile load refuses it
        const std::string key = std::string(is_path_list(part) ? "{path:" : "{name:") + format + "}";
        for (const auto& e : *elements) {
          const std::string literal = literal_string(f, e.text);
          const std::string* item = item_template(profile, f, part, e);
          value += (first ? "" : ", ") + (item ? substitute_placeholders(*item, {{key, literal}}) : literal);
          first = false;
        }
      }
      value += "]";
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
  std::string notes() const override { return profile_.notes; }
  std::string version() const override {
    if (profile_.version_argv.empty() || unavailable_reason()) return "";
    // A tool may write state under its home even for --version (codex creates
    // ~/.codex/tmp/arg0-linux, and with no HOME at all it takes the passwd entry's, the real
    // one): it gets a throw-away home of its own, removed afterwards, as every spawn does.
    const fs::path home = fs::temp_directory_path() / ("breakout-version-" + random_hex(8));
    std::error_code ec;
    fs::create_directories(home, ec);
    struct RemoveAfter {
      fs::path dir;
      ~RemoveAfter() {
        std::error_code e;
        fs::remove_all(dir, e);
      }
    } remove_after{home};
    LaunchSpec spec;
    spec.argv = profile_.version_argv;
    for (const auto& [name, value] : caller_base_env(home)) spec.env.push_back(name + "=" + value);
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
    if (decided_by(klass) == PolicyField::kDenyWrite && !policy.deny_write.empty() && denied())
      if (auto why = cannot_protect(target)) return why;
    if (!c.env_filter.empty() && decided_by(klass) == PolicyField::kEnvInherit && denied())
      return profile_.name + " cannot hide caller variables: " + c.env_filter;
    if (!c.env_pinned.empty() && decided_by(klass) == PolicyField::kEnvPinned && !policy.env.pinned.empty())
      return profile_.name + " cannot pin variables: " + c.env_pinned;
    if (!c.exec_cwd.empty() && decided_by(klass) == PolicyField::kExecCwd && denied())
      return profile_.name + " makes the exec's cwd writable: " + c.exec_cwd;
    if (!c.caller_fds.empty() && decided_by(klass) == PolicyField::kCallerFds && denied())
      return profile_.name + " passes the caller's fds on: " + c.caller_fds;
    // Through the proxy, to a destination the tool's allowlist cannot refuse as told.
    if (policy.network == NetworkMode::kProxy && class_spec(klass).via_proxy && target != nullptr &&
        target->kind == TargetKind::kEndpoint && denied()) {
      if (!c.proxy_ports.empty() && told_apart_by_port(target->value))
        return profile_.name + " cannot tell proxy destinations apart by port: " + c.proxy_ports;
      if (!c.proxy_local.empty() && endpoint_reach(target->value) == "loopback")
        return profile_.name + "'s proxy is set to admit local addresses: " + c.proxy_local;
    }
    return std::nullopt;
  }
  std::optional<std::string> refuses(Mechanism m, const Policy& policy) const override {
    return refusal_reason(profile_.refuses, profile_.name, m, policy.network);
  }
  // [refusal_exit]: the tool's status and message prefix, and no probe report (nothing ran).
  std::optional<Refusal> refusal_in(const LaunchResult& run) const override {
    const auto& e = profile_.refusal_exit;
    if (!e || !run.started || !run.exited || run.exit_code != e->status) return std::nullopt;
    if (run.err.compare(0, e->stderr_prefix.size(), e->stderr_prefix) != 0) return std::nullopt;
    if (run.out.find("BREAKOUT-REPORT") != std::string::npos) return std::nullopt;
    const std::string first_line = run.err.substr(0, run.err.find('\n'));
    return Refusal{"refusal-exit", "exit " + std::to_string(run.exit_code) + ": " +
                                       printable_excerpt(first_line, kMaxRefusalMessage)};
  }
  SpawnPlan plan(const SpawnRequest& r) const override {
    SpawnPlan p;
    // One name per spawn for the command, its config file and its cleanup ({exec_id}: an OCI
    // container id, unique on the host so concurrent attempts never address each other's).
    const std::string exec_id = "breakout-" + random_hex(8);
    p.argv = expand_profile(profile_, r, exec_id);
    for (const auto& [k, v] : r.caller_env) p.env.push_back(k + "=" + v);
    p.cwd = r.cwd;
    if (profile_.uses_spawner_dir || profile_.config_file) p.scratch_dir = path_text(spawner_dir_of(r.roots));
    if (auto file = expand_config_file(profile_, r, exec_id)) p.files.push_back(std::move(*file));
    p.after = expand_after(profile_, r, exec_id);
    return p;
  }

 private:
  // A protected-path denial the tool cannot enforce: not under what it protects by itself
  // (`protects`, compared case-folded so a case variant reaches the oracle's own check), and
  // no deny_write mapping. Silence would turn every such denial into an escape.
  std::optional<std::string> cannot_protect(const Target* target) const {
    if (profile_.maps_deny_write || target == nullptr) return std::nullopt;
    const TreeRoots roots = placeholder_roots();
    const fs::path at = resolve_policy_path(target->value, roots);
    std::vector<fs::path> guarded;
    for (const auto& p : profile_.protects) guarded.push_back(resolve_policy_path(p, roots));
    const bool as_spelled = std::any_of(guarded.begin(), guarded.end(), [&](const fs::path& g) { return path_within(at, g); });
    if (as_spelled || case_variant_of(at, guarded)) return std::nullopt;
    if (!profile_.cannot.deny_write.empty())
      return profile_.name + " cannot protect " + target->value + " inside a writable root: " + profile_.cannot.deny_write;
    return profile_.name + " profile maps no deny_write (no {deny_write...}, no {deny_write:FMT}, no [cannot_express] "
                           "deny_write): " + target->value + " would be unprotected";
  }

  Profile profile_;
};

}  // namespace

fs::path spawner_dir_of(const TreeRoots& roots) {
  fs::path dir = roots.tree;
  dir += ".spawner";
  return dir;
}

namespace {

// Scalars, typed literals and "{config}" of one spawn (the per-list keys are added by the caller).
std::map<std::string, std::string> spawn_vars(const Profile& profile, const SpawnRequest& r,
                                              const std::map<std::string, std::string>& visible,
                                              const std::string& exec_id) {
  std::map<std::string, std::string> vars;
  add_scalars(vars, profile, r, exec_id);
  if (profile.config_file) {
    std::map<std::string, std::string> path_vars = vars;
    vars.try_emplace("{config}", substitute_placeholders(profile.config_file->path, path_vars));
  }
  add_typed(vars, profile, r, visible);
  return vars;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> expand_config_file(const Profile& profile, const SpawnRequest& r,
                                                                      const std::string& exec_id) {
  if (!profile.config_file) return std::nullopt;
  check(r.policy != nullptr, "spawn request without a policy");
  const auto vars = spawn_vars(profile, r, visible_env(r), exec_id);
  return std::pair{vars.at("{config}"), substitute_placeholders(profile.config_file->text, vars)};
}

std::vector<std::string> expand_after(const Profile& profile, const SpawnRequest& r, const std::string& exec_id) {
  if (profile.after.empty()) return {};
  check(r.policy != nullptr, "spawn request without a policy");
  std::map<std::string, std::string> vars;
  add_scalars(vars, profile, r, exec_id);
  if (profile.config_file) vars.try_emplace("{config}", substitute_placeholders(profile.config_file->path, vars));
  std::vector<std::string> out;
  append_expanded(out, profile.after, vars);
  return out;
}

std::vector<std::string> expand_profile(const Profile& profile, const SpawnRequest& r, const std::string& exec_id) {
  check(r.policy != nullptr, "spawn request without a policy");
  // Which caller variables the child may see: inherited names, then pinned values win.
  const std::map<std::string, std::string> visible = visible_env(r);
  // The scalars, and the per-element keys of the list being expanded ("{path}", "{name}",
  // "{value}"), in one map: each list sets its keys per element and erases them after it,
  // so the command and the other lists see the scalars only. (A copy of the scalars per
  // list, and an initializer list copying each value twice, were most of the allocations
  // of this function, called per input by fuzz/policy_model_fuzzer.cc.)
  std::map<std::string, std::string> vars = spawn_vars(profile, r, visible, exec_id);

  // Room for every element a list can add, so the vector grows once.
  std::size_t most = profile.command.size() + r.probe_argv.size();
  if (auto it = profile.network.find(to_string(r.policy->network)); it != profile.network.end()) most += it->second.size();
  most += r.resolved.writable.size() * profile.writable_root.size();
  most += r.resolved.deny_read.size() * std::max(profile.deny_read_dir.size(), profile.deny_read_file.size());
  most += r.resolved.deny_write.size() * profile.deny_write.size();
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
    } else if (token == "{deny_write...}") {
      std::string& path = vars["{path}"];
      for (const auto& d : r.resolved.deny_write) {
        assign_path(path, d);
        append_expanded(out, profile.deny_write, vars);
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
