// Policy files (TOML) and their resolution against an attempt tree.
#include "harness/model/policy.h"

#include <algorithm>
#include <string_view>

#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/core/toml_schema.h"

namespace breakout {

namespace fs = std::filesystem;

const char* to_string(NetworkMode m) {
  switch (m) {
    case NetworkMode::kNone: return "none";
    case NetworkMode::kLoopback: return "loopback";
    case NetworkMode::kFull: return "full";
    case NetworkMode::kProxy: return "proxy";
  }
  return "?";
}

const std::vector<std::string>& default_deny_read() {
  static const std::vector<std::string> paths = {"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gcloud",
                                                 "~/.kube"};
  return paths;
}

Policy parse_policy_text(const std::string& text, const std::string& origin) {
  const toml::table root = schema::parse(text, origin);
  // Every field is commented in docs/policies.md.
  schema::only_fields(root, {"name", "description", "writable_roots", "deny_read", "deny_write", "network", "timeout_ms", "env"},
                      origin);
  Policy p;
  p.name = schema::required_string(root, "name", origin);
  p.description = schema::required_string(root, "description", origin);
  p.writable_roots = schema::string_array(root, "writable_roots", origin, false);
  if (root.contains("deny_read")) {
    p.deny_read = schema::string_array(root, "deny_read", origin, false);
  } else {
    p.deny_read = default_deny_read();
  }
  p.deny_write = schema::string_array(root, "deny_write", origin, false);
  // Policy paths must be symbolic or absolute; check them against a placeholder tree now.
  const TreeRoots probe_roots{"/t", "/t/workspace", "/t/sibling", "/t/home", "/t/extra"};
  for (const auto* list : {&p.writable_roots, &p.deny_read, &p.deny_write}) {
    for (const auto& path : *list) {
      try {
        (void)resolve_policy_path(path, probe_roots);
      } catch (const Error& e) {
        schema::fail("bad-path", origin, e.what());
      }
    }
  }
  const std::string net = schema::required_string(root, "network", origin);
  if (net == "none") p.network = NetworkMode::kNone;
  else if (net == "loopback") p.network = NetworkMode::kLoopback;
  else if (net == "full") p.network = NetworkMode::kFull;
  else if (net == "proxy") p.network = NetworkMode::kProxy;
  else schema::fail("bad-network", origin, "network must be none, loopback, full or proxy, not '" + net + "'");

  if (const toml::node* t = root.get("timeout_ms")) {
    if (t->is_string() && t->value<std::string>() == "none") {
      p.timeout.reset();
    } else if (t->is_integer() && *t->value<std::int64_t>() > 0) {
      p.timeout = std::chrono::milliseconds(*t->value<std::int64_t>());
    } else {
      schema::fail("bad-timeout", origin, "timeout_ms must be a positive integer or \"none\"");
    }
  } else {
    schema::fail("missing-field", origin, "missing field 'timeout_ms' (a number, or \"none\")");
  }

  if (const toml::node* env_node = root.get("env")) {
    const toml::table* env = env_node->as_table();
    if (!env) schema::fail("wrong-type", origin, "env must be a table");
    const std::string where = origin + ": env";
    schema::only_fields(*env, {"inherit", "pinned"}, where);
    p.env.inherit = schema::string_array(*env, "inherit", where, false);
    if (const toml::node* pinned = env->get("pinned")) {
      const toml::table* table = pinned->as_table();
      if (!table) schema::fail("wrong-type", where, "pinned must be a table of strings");
      for (const auto& [k, v] : *table) {
        if (!v.is_string()) schema::fail("wrong-type", where, "pinned." + std::string(k.str()) + " must be a string");
        p.env.pinned[std::string(k.str())] = *v.value<std::string>();
      }
    }
    // Each name must stay one variable in the child's environment: a pinned "A=B"
    // would reach it as A (environ(7): the name ends at the first '='), and a NUL
    // cuts the execve string short (found by fuzz/policy_fuzzer).
    auto valid_name = [](const std::string& n) { return !n.empty() && n.find_first_of(std::string_view("=\0", 2)) == std::string::npos; };
    for (const auto& name : p.env.inherit)
      if (!valid_name(name)) schema::fail("bad-env-name", where, "inherit holds '" + printable_excerpt(name, 80) + "': names are non-empty, without '=' or NUL");
    for (const auto& [name, value] : p.env.pinned) {
      if (!valid_name(name)) schema::fail("bad-env-name", where, "pinned holds '" + printable_excerpt(name, 80) + "': names are non-empty, without '=' or NUL");
      if (value.find('\0') != std::string::npos) schema::fail("bad-env-value", where, "pinned." + printable_excerpt(name, 80) + " holds a NUL");
    }
  }
  return p;
}

Policy load_policy_file(const fs::path& file) {
  return parse_policy_text(schema::read_file(file.string()), file.string());
}

namespace {

#ifndef _WIN32
// fs::path::lexically_normal() ([fs.path.generic] normal form) computed over a POSIX string:
// the result as one string, where lexically_normal builds a path element by element (an
// allocation per element under ASan: resolve_policy_path dominated policy_model_fuzzer). tests/unit/policy_path_test.cc compares the two on every short path.
// Writes into `out` (its capacity reused; `s` must not point into it).
void lexically_normal_posix(std::string_view s, std::string& out) {
  // Only separators: libstdc++ keeps them as they are ("//" stays "//"), and so does this.
  if (s.find_first_not_of('/') == std::string_view::npos) {
    out.assign(s);
    return;
  }
  out.clear();
  const bool abs = s.front() == '/';
  out.reserve(s.size() + 1);
  if (abs) out += '/';
  const std::size_t base = out.size();  // the names start here
  std::size_t names = 0, dotdots = 0;   // names kept; ".." kept can only lead them
  bool trailing = false;                // the normal form ends with a separator
  for (std::size_t i = 0; i < s.size();) {
    while (i < s.size() && s[i] == '/') ++i;
    if (i == s.size()) {
      trailing = true;
      break;
    }
    const std::size_t j = std::min(s.find('/', i), s.size());
    const std::string_view name = s.substr(i, j - i);
    i = j;
    trailing = false;
    if (name == ".") {  // removed with its separator: "a/." is "a/"
      trailing = true;
    } else if (name == ".." && names > dotdots) {  // "a/.." goes, leaving "a"'s separator
      out.resize(names == 1 ? base : out.rfind('/'));
      --names;
      trailing = true;
    } else if (name == ".." && abs) {  // "/.." is "/"
    } else {
      if (names > 0) out += '/';
      out.append(name);
      ++names;
      if (name == "..") ++dotdots;
    }
  }
  if (names == 0) {
    out.assign(abs ? "/" : ".");
    return;
  }
  if (trailing && names > dotdots) out += '/';  // never after a last ".."
}

fs::path normal_path(std::string_view s) {
  std::string out;
  lexically_normal_posix(s, out);
  return fs::path(std::move(out));
}
#endif  // Windows paths keep fs::path::lexically_normal (native() is a wide string there)

}  // namespace

fs::path resolve_policy_path(const std::string& symbolic, const TreeRoots& roots) {
  // (base / rest).lexically_normal(), as one string on POSIX: base / rest is rest when
  // rest is absolute ("~//etc" is "/etc"), else base, a separator unless base ends with
  // one, and rest ([fs.path.append]).
  auto under = [](const fs::path& base, std::string_view rest) -> fs::path {
    if (rest.empty()) return base;
#ifndef _WIN32
    if (rest.front() == '/') return normal_path(rest);
    // Joined in a per-thread buffer: only the normal form is a new string (a copy of the
    // base plus its growth by `rest` were two allocations per resolved path).
    thread_local std::string joined;
    joined.assign(base.native());
    if (!joined.empty() && joined.back() != '/') joined += '/';
    joined.append(rest);
    return normal_path(joined);
#else
    return (base / fs::path(rest)).lexically_normal();
#endif
  };
  auto tail = [&](std::string_view prefix) -> std::optional<std::string_view> {
    std::string_view s = symbolic;
    if (s == prefix) return std::string_view{};
    if (s.size() > prefix.size() && s.substr(0, prefix.size()) == prefix && s[prefix.size()] == '/')
      return s.substr(prefix.size() + 1);
    return std::nullopt;
  };
  if (!symbolic.empty() && symbolic[0] == '/') {
#ifndef _WIN32
    return normal_path(symbolic);
#else
    return fs::path(symbolic).lexically_normal();
#endif
  }
  if (auto r = tail("~")) return under(roots.home, *r);
  if (auto r = tail("workspace")) return under(roots.workspace, *r);
  if (auto r = tail("sibling")) return under(roots.sibling, *r);
  if (auto r = tail("extra")) return under(roots.extra, *r);
  if (auto r = tail("parent")) return under(roots.tree, *r);
  throw Error("bad-path", "policy path '" + symbolic +
              "' must start with ~, workspace, sibling, extra, parent or /");
}

bool is_lexically_normal(const fs::path& p) {
#ifndef _WIN32
  // Into a per-thread buffer: the classifier asks this for every path it classifies.
  thread_local std::string normal;
  lexically_normal_posix(p.native(), normal);
  return normal == p.native();
#else
  return p.lexically_normal().native() == p.native();
#endif
}

ResolvedPolicy resolve(const Policy& policy, const TreeRoots& roots) {
  ResolvedPolicy r;
  r.writable.push_back(roots.workspace);
  for (const auto& w : policy.writable_roots) r.writable.push_back(resolve_policy_path(w, roots));
  for (const auto& d : policy.deny_read) r.deny_read.push_back(resolve_policy_path(d, roots));
  for (const auto& d : policy.deny_write) r.deny_write.push_back(resolve_policy_path(d, roots));
  return r;
}

namespace {

#if defined(__clang__)
#define BREAKOUT_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define BREAKOUT_NO_COVERAGE
#endif

// POSIX paths component by component over their strings: the same answer as comparing
// fs::path elements (a root directory, then names; the empty names of "//" and of a
// trailing '/' skipped), without an fs::path::compare per element, which dominated
// classify() under ASan in the fuzz targets. A template only so that it compiles where
// fs::path holds wide strings (Windows), where path_within keeps the element loop.
//
// Not instrumented for coverage in fuzz builds, and plain loops rather than find/memcmp
// (out-of-line calls that would be instrumented, and memcmp's fuzzer hook): the classifier
// and the fuzzers' own checks call it tens of times per path, and its edge counters and
// comparison hooks were ~16 % of policy_model_fuzzer's CPU (perf). What that feedback could
// lead to, no fuzzer can see: both sides of every fuzz property call this function. Its
// answers are checked instead by tests/unit/policy_path_test.cc, against fs::path element
// comparison on every pair of paths over {/ . a b} up to 4 characters. ASan and UBSan still
// check it.
template <typename Char>
BREAKOUT_NO_COVERAGE bool within_posix(std::basic_string_view<Char> ps, std::basic_string_view<Char> rs) {
  const std::size_t pn = ps.size(), rn = rs.size();
  if (rn > 0 && (pn > 0 && ps[0] == '/') != (rs[0] == '/')) return false;  // "/" is an element of its own
  std::size_t i = 0, j = 0;
  for (;;) {  // a name of the root at a time
    while (j < rn && rs[j] == '/') ++j;
    if (j == rn) return true;  // every name of the root matched
    while (i < pn && ps[i] == '/') ++i;
    for (; j < rn && rs[j] != '/'; ++i, ++j)
      if (i == pn || ps[i] != rs[j]) return false;
    if (i < pn && ps[i] != '/') return false;  // p's name goes on: "/ab" is not within "/a"
  }
}

}  // namespace

const fs::path* case_variant_of(const fs::path& p, const std::vector<fs::path>& list) {
  for (const auto& entry : list)
    if (path_within(p, entry)) return nullptr;
  const fs::path folded(ascii_lower(p.generic_string()));
  for (const auto& entry : list)
    if (path_within(folded, fs::path(ascii_lower(entry.generic_string())))) return &entry;
  return nullptr;
}

bool path_within(const fs::path& p, const fs::path& root) {
  if constexpr (fs::path::preferred_separator == '/') {
    using View = std::basic_string_view<fs::path::value_type>;
    return within_posix(View(p.native()), View(root.native()));
  }
  auto pi = p.begin();
  for (auto ri = root.begin(); ri != root.end(); ++ri, ++pi) {
    if (ri->empty()) continue;  // trailing separator of root
    if (pi == p.end() || *pi != *ri) return false;
  }
  return true;
}

}  // namespace breakout
