// Loading suites, policies and attempt files; every schema rule has an error code (docs/scenarios.md).
#include "harness/model/scenario.h"

#include <algorithm>
#include <map>
#include <set>

#include "harness/core/error.h"
#include "harness/core/suggest.h"
#include "harness/core/toml_schema.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation.h"
#include "harness/model/path_form.h"
#include "harness/model/target.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

// `value` is one of the '|'-separated `choices`.
bool one_of(const std::string& value, std::string_view choices) {
  for (std::size_t at = 0; at <= choices.size();) {
    const std::size_t bar = std::min(choices.find('|', at), choices.size());
    if (choices.substr(at, bar - at) == value) return true;
    at = bar + 1;
  }
  return false;
}

Attempt parse_attempt(const toml::table& t, const std::string& where) {
  // Field meanings: docs/scenarios.md. "expect"/"expected" are deliberately not
  // fields: expectations come from the policy (expectation.h).
  schema::only_fields(t, {"id", "title", "description", "reference", "platforms", "class", "probe",
                          "args", "targets", "param", "controls_from", "needs", "uses", "timeout_ms", "env"},
                      where);
  Attempt a;
  a.id = schema::required_string(t, "id", where);
  const std::string here = where + " (" + a.id + ")";
  for (char c : a.id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'))
      schema::fail("bad-id", here, "ids use [A-Za-z0-9._-] only");
  a.title = schema::required_string(t, "title", here);
  a.description = schema::required_string(t, "description", here);
  a.reference = schema::required_string(t, "reference", here);
  a.platforms = schema::string_array(t, "platforms", here, true);
  for (const auto& p : a.platforms)
    if (p != "linux" && p != "windows") schema::fail("bad-platform", here, "unknown platform '" + p + "'");
  const std::string klass = schema::required_string(t, "class", here);
  auto parsed = attempt_class_from(klass);
  if (!parsed) schema::fail("bad-class", here, "unknown class '" + klass + "'");
  a.klass = *parsed;
  const ClassSpec& spec = class_spec(a.klass);
  a.probe = schema::required_string(t, "probe", here);
  if (a.probe != probe_for(a.klass))
    schema::fail("probe-mismatch", here,
                 "class " + klass + " is judged for probe '" + probe_for(a.klass) + "', not '" + a.probe + "'");
  a.args = schema::string_array(t, "args", here, !is_fs_api(a.klass));  // the fs-api classes run no probe
  if (is_fs_api(a.klass) && !a.args.empty()) schema::fail("unexpected-args", here, "class " + klass + " runs no probe");
  a.targets = schema::string_array(t, "targets", here, false);
  if (has_targets(a.klass) && a.targets.empty())
    schema::fail("missing-targets", here, "class " + klass + " needs at least one target");
  if (!has_targets(a.klass) && !a.targets.empty())
    schema::fail("unexpected-targets", here, "class " + klass + " takes no targets");
  for (const auto& target : a.targets) {
    try {
      (void)parse_target(target);
    } catch (const Error& e) {
      schema::fail("bad-target", here, e.what());
    }
  }
  a.param = schema::optional_string(t, "param", here).value_or("");
  if (is_contract(a.klass) && a.param.empty())
    schema::fail("missing-param", here, "contract class " + klass + " needs 'param'");
  if (takes_path_form(a.klass) && !path_form_from(a.param))
    schema::fail("bad-form", here, "param '" + a.param + "' is not a path form (docs/scenarios.md, path forms)");
  if (spec.params != nullptr && !one_of(a.param, spec.params))
    schema::fail("bad-param", here, "class " + klass + " needs param = one of " + spec.params + ", not '" + a.param + "'");
  a.controls_from = schema::optional_string(t, "controls_from", here).value_or("");
  if (!a.controls_from.empty() && !has_targets(a.klass))
    schema::fail("unexpected-controls", here, "class " + klass + " takes no targets, so it has no controls to borrow");
  for (const auto& name : schema::string_array(t, "needs", here, false)) {
    const auto m = mechanism_from(name);
    if (!m) schema::fail("bad-mechanism", here, "needs: unknown mechanism '" + name + "' (" + mechanism_names() + ")");
    a.needs.push_back(*m);
  }
  for (const auto& name : schema::string_array(t, "uses", here, false)) {
    if (name != "names") schema::fail("bad-uses", here, "uses: unknown harness facility '" + name + "' (names)");
    a.uses_names = true;
  }
  a.env = schema::string_array(t, "env", here, false);
  for (const auto& e : a.env)
    if (e.find('=') == std::string::npos || e.front() == '=' || e.find('\0') != std::string::npos)
      schema::fail("bad-env-name", here, "env entries are NAME=value with a non-empty NAME");
  if (const toml::node* to = t.get("timeout_ms")) {
    a.timeout_override = true;
    if (to->is_string() && to->value<std::string>() == "none") a.timeout.reset();
    else if (to->is_integer() && *to->value<std::int64_t>() > 0)
      a.timeout = std::chrono::milliseconds(*to->value<std::int64_t>());
    else schema::fail("bad-timeout", here, "timeout_ms must be a positive integer or \"none\"");
  }
  if (spec.timeout == TimeoutRule::kFinite && (!a.timeout_override || !a.timeout))
    schema::fail("missing-timeout", here, klass + " needs a finite timeout_ms");
  if (spec.timeout == TimeoutRule::kNone && (!a.timeout_override || a.timeout))
    schema::fail("missing-timeout", here, klass + " needs timeout_ms = \"none\"");
  a.source = where;
  return a;
}

// Does any target of `a` expect kind `want` under `policy`?
bool any_target(const Attempt& a, const Policy& policy, Expected want) {
  const TreeRoots roots = placeholder_roots();
  for (const auto& text : a.targets) {
    const Target target = parse_target(text);
    if (expect(a.klass, &target, policy, roots).value == want) return true;
  }
  return false;
}

// The attempt whose allowed executions control `a` (`controls_from`), which must be another
// attempt of the suite that borrows from nobody itself (one hop: a group is one attempt's).
const Attempt* control_source(const Attempt& a, const std::vector<Attempt>& suite) {
  if (a.controls_from.empty()) return &a;
  const std::string where = a.source + " (" + a.id + ")";
  for (const auto& other : suite) {
    if (other.id != a.controls_from) continue;
    if (&other == &a || !other.controls_from.empty() || !has_targets(other.klass))
      schema::fail("bad-controls", where, "controls_from '" + a.controls_from +
                                              "' must name another attempt with targets that borrows no controls itself");
    return &other;
  }
  schema::fail("bad-controls", where, "controls_from '" + a.controls_from + "' is no attempt of this suite");
}

// Every denied target needs an allowed twin in the same group (the attempt, or the one it
// borrows its controls from) under this policy.
void check_controls(const Attempt& a, const Policy& policy, const std::vector<Attempt>& suite) {
  if (!has_targets(a.klass)) return;
  const Attempt* source = control_source(a, suite);
  const bool any_denied = any_target(a, policy, Expected::kDenied);
  const bool any_allowed = any_target(a, policy, Expected::kAllowed) || any_target(*source, policy, Expected::kAllowed);
  if (any_denied && !any_allowed)
    schema::fail("no-control", a.source + " (" + a.id + ")",
                 "under policy '" + policy.name + "' every target is denied; add an allowed target as control");
}

// An include names an attempts file, or a directory whose *.toml files are all
// included in name order (scenarios/regressions/, written by `breakout repro --save`).
std::vector<fs::path> included_files(const fs::path& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(path))
    if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

const char* to_string(AttemptClass c) { return class_spec(c).name; }
bool has_targets(AttemptClass c) { return class_spec(c).targets; }
bool is_contract(AttemptClass c) { return class_spec(c).contract; }
const char* probe_for(AttemptClass c) { return class_spec(c).probe; }
bool needs_sessions(AttemptClass c) { return class_spec(c).sessions; }
bool needs_real_home(AttemptClass c) { return class_spec(c).real_home; }
bool needs_real_host(AttemptClass c) { return class_spec(c).real_host; }
bool is_fs_api(AttemptClass c) { return class_spec(c).fs_api; }
bool takes_path_form(AttemptClass c) { return class_spec(c).path_form; }

std::optional<AttemptClass> attempt_class_from(const std::string& s) {
  for (const ClassSpec& spec : class_table())
    if (s == spec.name) return spec.klass;
  return std::nullopt;
}

namespace {

// The line of an [[attempt]] table: toml++ records the header's position as the table's source
// region (toml::source_region); its id's line when the table has none.
int source_line(const toml::table& t) {
  if (t.source().begin.line > 0) return static_cast<int>(t.source().begin.line);
  if (const toml::node* id = t.get("id")) return static_cast<int>(id->source().begin.line);
  return 0;
}

}  // namespace

std::vector<Attempt> parse_attempts_text(const std::string& text, const std::string& origin) {
  const toml::table root = schema::parse(text, origin);
  schema::only_fields(root, {"attempt"}, origin);
  const toml::array* list = root["attempt"].as_array();
  if (!list) schema::fail("missing-field", origin, "no [[attempt]] tables");
  std::vector<Attempt> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const toml::table* t = list->get(i)->as_table();
    const std::string where = origin + ": attempt[" + std::to_string(i) + "]";
    if (!t) schema::fail("wrong-type", where, "must be a table");
    out.push_back(parse_attempt(*t, where));
    out.back().file = origin;
    out.back().line = source_line(*t);
  }
  return out;
}

namespace {

fs::path suite_file(const std::string& name_or_path, const fs::path& scenarios_dir) {
  fs::path file = name_or_path;
  if (file.extension() != ".toml") file = scenarios_dir / "suites" / (name_or_path + ".toml");
  if (!fs::exists(file)) {
    const std::string hint =
        fs::path(name_or_path).extension() == ".toml" ? "" : "; " + did_you_mean(name_or_path, list_suites(scenarios_dir));
    throw Error("no-suite", "no suite '" + name_or_path + "' (looked for " + file.string() + ")" + hint);
  }
  return file;
}

toml::table suite_table(const fs::path& file) { return schema::parse(schema::read_file(file.string()), file.string()); }

bool is_union(const toml::table& root) { return root.contains("suites"); }

// What every suite file has: only its own fields, a name and a description.
Suite suite_head(const toml::table& root, const fs::path& file, std::initializer_list<std::string_view> fields) {
  schema::only_fields(root, fields, file.string());
  Suite suite;
  suite.file = file;
  suite.name = schema::required_string(root, "name", file.string());
  suite.description = schema::required_string(root, "description", file.string());
  return suite;
}

// A suite of attempt files: its policies apply to every attempt it includes.
Suite load_plain_suite(const toml::table& root, const fs::path& file, const fs::path& scenarios_dir) {
  const std::string origin = file.string();
  Suite suite = suite_head(root, file, {"name", "description", "policies", "include"});
  for (const auto& p : schema::string_array(root, "policies", origin, true)) {
    const fs::path pf = scenarios_dir / "policies" / (p + ".toml");
    if (!fs::exists(pf)) schema::fail("no-policy", origin, "policy '" + p + "' not found at " + pf.string());
    suite.policies.push_back(load_policy_file(pf));
    if (suite.policies.back().name != p)
      schema::fail("policy-name", pf.string(), "name must equal the file name '" + p + "'");
  }
  if (suite.policies.empty()) schema::fail("missing-field", origin, "a suite needs at least one policy");
  std::set<std::string> ids;
  for (const auto& inc : schema::string_array(root, "include", origin, true)) {
    for (const fs::path& af : included_files((file.parent_path() / inc).lexically_normal())) {
      for (auto& a : parse_attempts_text(schema::read_file(af.string()), af.string())) {
        if (!ids.insert(a.id).second) schema::fail("duplicate-id", af.string(), "attempt id '" + a.id + "' appears twice");
        suite.attempts.push_back(std::move(a));
      }
    }
  }
  for (const auto& a : suite.attempts)
    for (const auto& p : suite.policies) check_controls(a, p, suite.attempts);
  return suite;
}

// Adds `part` to the union `into`: an attempt several members include (the same entry of
// the same file) runs once per policy of any of them; two different attempts with one id
// are an error, as within a suite.
void merge_member(Suite& into, const Suite& part) {
  for (const auto& p : part.policies)
    if (std::none_of(into.policies.begin(), into.policies.end(), [&](const Policy& q) { return q.name == p.name; }))
      into.policies.push_back(p);
  std::vector<std::string> names;
  for (const auto& p : part.policies) names.push_back(p.name);
  for (const auto& a : part.attempts) {
    auto same = std::find_if(into.attempts.begin(), into.attempts.end(), [&](const Attempt& b) { return b.id == a.id; });
    if (same == into.attempts.end()) {
      into.attempts.push_back(a);
      into.attempts.back().policies = names;
      continue;
    }
    if (same->source != a.source)
      schema::fail("duplicate-id", part.file.string(),
                   "attempt id '" + a.id + "' is " + same->source + " in one member and " + a.source + " in another");
    for (const auto& n : names)
      if (std::find(same->policies.begin(), same->policies.end(), n) == same->policies.end()) same->policies.push_back(n);
  }
}

// A union of other suites (`--suite all`): per platform, the member suites it runs; every
// other suite file must be named in `leaves_out` with its reason, so a new suite is either
// run by `all` or left out on purpose, never forgotten.
Suite load_union_suite(const toml::table& root, const fs::path& file, const fs::path& scenarios_dir,
                       const std::string& platform) {
  const std::string origin = file.string();
  Suite suite = suite_head(root, file, {"name", "description", "suites", "leaves_out"});
  const toml::table* per_platform = root["suites"].as_table();
  if (!per_platform) schema::fail("wrong-type", origin, "field 'suites' must be a table of platform = [suite names]");
  const toml::node* out_node = root.get("leaves_out");
  const toml::table* leaves_out = out_node ? out_node->as_table() : nullptr;
  if (out_node && !leaves_out) schema::fail("wrong-type", origin, "field 'leaves_out' must be a table of suite = \"reason\"");
  std::map<std::string, toml::table> tables;  // every suite file of the directory, read once
  for (const auto& name : list_suites(scenarios_dir)) tables.emplace(name, suite_table(scenarios_dir / "suites" / (name + ".toml")));
  std::set<std::string> accounted;
  std::vector<std::string> members;
  for (const auto& [key, node] : *per_platform) {
    const std::string where = origin + ": suites." + std::string(key.str());
    if (!one_of(std::string(key.str()), "linux|windows")) schema::fail("bad-platform", where, "platform must be linux or windows");
    const toml::array* list = node.as_array();
    if (!list) schema::fail("wrong-type", where, "must be an array of suite names");
    for (const auto& element : *list) {
      if (!element.is_string()) schema::fail("wrong-type", where, "must hold only suite names");
      const std::string name = *element.value<std::string>();
      if (!tables.count(name))
        schema::fail("no-suite", where, "no suite '" + name + "' in " + (scenarios_dir / "suites").string());
      if (is_union(tables.at(name)))
        schema::fail("nested-union", where, "member '" + name + "' is itself a union of suites");
      accounted.insert(name);
      if (key.str() == platform) members.push_back(name);
    }
  }
  if (leaves_out)
    for (const auto& [key, node] : *leaves_out) {
      const std::string name(key.str());
      const std::string where = origin + ": leaves_out." + name;
      if (!node.is_string() || node.value<std::string>()->empty())
        schema::fail("wrong-type", where, "must be the reason the suite is left out");
      if (!tables.count(name)) schema::fail("no-suite", where, "no suite '" + name + "'");
      if (!accounted.insert(name).second) schema::fail("suite-twice", where, "'" + name + "' is both run and left out");
    }
  for (const auto& [name, table] : tables) {
    if (accounted.count(name) || is_union(table)) continue;  // a union (this one too) runs nothing of its own
    schema::fail("suite-unaccounted", origin, "suite '" + name + "' is neither run (suites) nor left out with a reason (leaves_out)");
  }
  if (members.empty()) schema::fail("no-suites", origin, "no member suites for platform " + platform);
  // Each member checked its attempts' controls under its own policies as it loaded, which are all
  // the union runs them under (an id is one attempt across members): nothing left to check.
  for (const auto& name : members)
    merge_member(suite, load_plain_suite(tables.at(name), scenarios_dir / "suites" / (name + ".toml"), scenarios_dir));
  return suite;
}

}  // namespace

bool runs_under(const Attempt& a, const Policy& p) {
  return a.policies.empty() || std::find(a.policies.begin(), a.policies.end(), p.name) != a.policies.end();
}

Suite load_suite(const std::string& name_or_path, const fs::path& scenarios_dir, const std::string& platform) {
  const fs::path file = suite_file(name_or_path, scenarios_dir);
  const toml::table root = suite_table(file);
  return is_union(root) ? load_union_suite(root, file, scenarios_dir, platform) : load_plain_suite(root, file, scenarios_dir);
}

std::vector<std::string> list_suites(const fs::path& scenarios_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(scenarios_dir / "suites", ec))
    if (e.path().extension() == ".toml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace breakout
