// Generating operations and path forms from bytes; resolving multi-step forms over the model.
#include "harness/paths/forms.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "harness/core/text.h"

namespace breakout::paths {

namespace {

// Awkward names (catalog.md §1): a newline, non-UTF-8 bytes, leading dashes (argv
// injection), spaces, quotes, '$', names that look like '.' and '..'.
constexpr const char* kNames[] = {"a", "b", "c", "-rf", "--x=y", "new\nline", "\xff\xfe", "sp ace",
                                  "...", "$HOME", "q'\"", "..a", ".hidden", "existing.txt"};
std::string pick_name(ByteReader& in) { return kNames[in.pick(std::size(kNames))]; }

bool is_dir(Kind k) { return k == Kind::kDir || k == Kind::kHost; }
bool is_dir(const ModelFs& m, NodeId id) { return is_dir(m.node(id).kind); }

// Every node under `top` by first name (symlinks not followed), `top` first, breadth first,
// into `out` (its capacity reused). Only files have second names (link(2) refuses a directory:
// EPERM), so a directory entry is its first name without comparing names (deep chains: 200-byte
// names).
void walk_under(const ModelFs& m, NodeId top, std::vector<NodeId>& out) {
  out.assign(1, top);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!is_dir(m, out[i])) continue;
    for (const auto& [name, id] : m.node(out[i]).children) {
      const Node& n = m.node(id);
      if (n.parent == out[i] && (is_dir(n.kind) || n.name == name)) out.push_back(id);
    }
  }
}

// walk_under(), kept while the names stay the same (ModelFs::version()): one fuzz input asks
// for the same two lists (the tree, gen) at every op and form in between, and every input
// starts from the same base tree (its version comes back with rollback()). With it, the
// nodes of each kind in the same order (next_op's directories and files, next_form's
// symlinks): filtered once per version instead of into a new vector per op and form. A
// replaced entry reuses its vectors' capacity: no allocation per op once they are grown
// (each malloc under ASan records a stack, and ops change the version every time).
// Not thread-safe across threads sharing a model: one cache per thread.
struct Under {
  std::uint64_t version = 0;
  NodeId top = kNoNode;
  std::uint64_t used = 0;
  std::vector<NodeId> nodes;
  std::vector<NodeId> of_kind[5];  // indexed by Kind
};
const Under& under(const ModelFs& m, NodeId top) {
  thread_local Under cache[4];
  thread_local std::uint64_t clock = 0;
  Under* oldest = &cache[0];
  for (Under& c : cache) {
    if (c.version == m.version() && c.top == top) {
      c.used = ++clock;
      return c;
    }
    if (c.used < oldest->used) oldest = &c;
  }
  oldest->version = m.version();
  oldest->top = top;
  oldest->used = ++clock;
  walk_under(m, top, oldest->nodes);
  for (auto& v : oldest->of_kind) v.clear();
  for (const NodeId id : oldest->nodes) oldest->of_kind[static_cast<std::size_t>(m.node(id).kind)].push_back(id);
  return *oldest;
}
const std::vector<NodeId>& nodes_under(const ModelFs& m, NodeId top) { return under(m, top).nodes; }
const std::vector<NodeId>& nodes_under(const ModelFs& m, NodeId top, Kind kind) {
  return under(m, top).of_kind[static_cast<std::size_t>(kind)];
}

// Names of an absolute path, as views into it ("" names from "//" dropped), into `out`.
void components(std::string_view p, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < p.size()) {
    const std::size_t j = std::min(p.find('/', i), p.size());
    if (j > i) out.push_back(p.substr(i, j - i));
    i = j + 1;
  }
}

// `to` relative to directory `from` (both absolute, symlink-free): ".." is then physical.
// The name lists live per thread and keep their capacity (two vectors per form otherwise).
std::string relative(const std::string& to, const std::string& from) {
  thread_local std::vector<std::string_view> t, f;
  components(to, t);
  components(from, f);
  std::size_t common = 0;
  while (common < t.size() && common < f.size() && t[common] == f[common]) ++common;
  std::string out;
  out.reserve(3 * (f.size() - common) + to.size());
  for (std::size_t i = common; i < f.size(); ++i) out += out.empty() ? ".." : "/..";
  for (std::size_t i = common; i < t.size(); ++i) {
    if (!out.empty()) out += '/';
    out += t[i];
  }
  return out.empty() ? "." : out;
}

// '//', '/./' at separators and a trailing '/': the kernel skips all three (path_resolution(7)).
std::string decorate(ByteReader& in, const std::string& s) {
  const std::uint8_t how = in.byte();
  if ((how & 3) == 0) return (how & 4) ? s + '/' : s;
  // Copied a name at a time (a deep chain's path has 5,000+ bytes, 26 separators).
  std::string out;
  out.reserve(s.size() + 64);
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t slash = s.find('/', i);
    if (slash == std::string::npos) {
      out.append(s, i, std::string::npos);
      break;
    }
    out.append(s, i, slash + 1 - i);
    if ((how & 1) && in.flag()) out += '/';
    if ((how & 2) && in.flag()) out += "./";
    i = slash + 1;
  }
  if (how & 4) out += '/';
  return out;
}

// A target: an existing node of the tree, an ancestor of the tree, or a name not made yet.
std::string target_path(ByteReader& in, const ModelFs& m, const Scope& scope) {
  const auto& nodes = nodes_under(m, scope.tree);
  const std::size_t n = in.pick(nodes.size() + 3);
  if (n < nodes.size()) return m.path_of(nodes[n]);
  if (n == nodes.size()) return m.path_of(m.node(scope.tree).parent);
  return m.path_of(scope.gen) + "/" + pick_name(in);  // missing now, maybe made by a later op
}

std::pair<int, std::string> pick_fd(ByteReader& in, const ModelFs& m) {
  const auto& fds = m.fds();
  if (fds.empty()) return {-1, "/"};
  auto it = fds.begin();
  std::advance(it, static_cast<long>(in.pick(fds.size())));
  // A descriptor of a file has no children: relative forms from it must fail with ENOTDIR.
  return {it->first, it->second.second};
}

// One-string spellings of `target`, relative ones from directory `base` (a symlink's
// directory, or the cwd). Returns the text; sets `fd` for the dirfd style.
std::string one_string(ByteReader& in, const ModelFs& m, const std::string& target, const std::string& base,
                       int& fd, std::string& style) {
  switch (in.pick(8)) {
    case 0: style = "absolute"; return decorate(in, target);
    case 1: style = "relative"; return decorate(in, relative(target, base));
    case 2: style = "proc-root"; return "/proc/self/root" + decorate(in, target);
    case 3: style = "proc-cwd"; return "/proc/self/cwd/" + decorate(in, relative(target, m.path_of(m.cwd())));
    case 4:
    case 5: {
      const auto [n, path] = pick_fd(in, m);
      style = in.flag() ? "dev-fd" : "proc-fd";
      const std::string prefix = (style == "dev-fd" ? "/dev/fd/" : "/proc/self/fd/") + std::to_string(n);
      return prefix + (target == path ? "" : "/" + decorate(in, relative(target, path)));
    }
    case 6: {
      style = "dirfd";
      const auto [n, path] = pick_fd(in, m);
      fd = n;
      return decorate(in, relative(target, path));
    }
    default: {
      style = "overshoot";  // "/.." is "/" (path_resolution(7))
      std::string up;
      for (std::size_t i = 0, n = 1 + in.pick(4); i < n; ++i) up += "/..";
      return up + target;
    }
  }
}

}  // namespace

const std::string& deep_name() {
  static const std::string name(kDeepNameLength, 'd');
  return name;
}

Op next_op(ByteReader& in, const ModelFs& m, const Scope& scope) {
  const std::vector<NodeId>& dirs = nodes_under(m, scope.gen, Kind::kDir);
  Op op;
  op.kind = static_cast<OpKind>(in.pick(5));
  op.dir = dirs[in.pick(dirs.size())];
  op.name = pick_name(in);
  if (op.kind == OpKind::kSymlink) {
    const std::uint8_t how = in.byte() % 8;
    if (how == 0) op.link = op.name;  // a loop: ELOOP
    else if (how == 1) op.link = "";  // symlink(2) refuses an empty target: the op fails
    else {
      int fd = -1;
      std::string style;
      op.link = one_string(in, m, target_path(in, m, scope), m.path_of(op.dir), fd, style);
      if (fd >= 0) op.link = "/proc/self/fd/" + std::to_string(fd) + "/" + op.link;
    }
  } else if (op.kind == OpKind::kHardlink) {
    const std::vector<NodeId>& files = nodes_under(m, scope.tree, Kind::kFile);
    if (files.empty()) op.kind = OpKind::kFile;
    else op.file = files[in.pick(files.size())];
  } else if (op.kind == OpKind::kDeep) {
    op.depth = 18 + static_cast<int>(in.pick(8));  // 18 x 201 bytes: past PATH_MAX from the workspace
  }
  return op;
}

bool apply(ModelFs& m, const Op& op) {
  if (m.child(op.dir, op.name) != kNoNode) return false;
  switch (op.kind) {
    case OpKind::kMkdir: m.add(op.dir, op.name, Kind::kDir); break;
    case OpKind::kFile: m.add(op.dir, op.name, Kind::kFile); break;
    case OpKind::kSymlink:
      if (op.link.empty() || op.link.size() >= kPathMax) return false;  // symlink(2): ENOENT, ENAMETOOLONG
      m.add(op.dir, op.name, Kind::kSymlink, op.link);
      break;
    case OpKind::kHardlink: m.link(op.dir, op.name, op.file); break;
    case OpKind::kDeep: {
      NodeId d = m.add(op.dir, op.name, Kind::kDir);
      for (int i = 0; i < op.depth; ++i) d = m.add(d, deep_name(), Kind::kDir);
      break;
    }
  }
  return true;
}

Form next_form(ByteReader& in, const ModelFs& m, const Scope& scope) {
  Form f;
  std::string target = target_path(in, m, scope);
  const std::size_t style = in.pick(4);
  if (style == 0) {
    // Through a symlink made in the workspace: the symlink's own path, then on from where it leads.
    const std::vector<NodeId>& links = nodes_under(m, scope.gen, Kind::kSymlink);
    if (!links.empty()) {
      const NodeId s = links[in.pick(links.size())];
      std::string link_path = m.path_of(s);  // once: two fresh strings per form otherwise
      const Resolved via = m.resolve(m.root(), link_path);
      f.style = "via-symlink";
      const bool onward = via.outcome == Outcome::kOk && is_dir(m, via.node) && in.flag();
      if (onward) link_path.append("/").append(relative(target, via.path));
      f.steps.push_back(std::move(link_path));
      return f;
    }
  }
  if (style == 1) {
    // Walking: each step short, the whole possibly past PATH_MAX (openat from the previous step).
    f.style = "walk";
    thread_local std::vector<std::string_view> parts;
    components(target, parts);
    std::string step = "/";
    for (const auto& p : parts) {
      if (step.size() + p.size() > 1000) {
        f.steps.push_back(step);
        step.clear();
      }
      if (!step.empty() && step != "/") step += '/';
      step += p;
    }
    f.steps.push_back(step);
    return f;
  }
  int fd = -1;
  f.steps.push_back(one_string(in, m, target, m.path_of(m.cwd()), fd, f.style));
  if (fd >= 0) {
    f.start = Start::kFd;
    f.fd = fd;
  }
  if (style == 2) f.steps.back() += "/" + pick_name(in) + "/..";  // "x/.." needs x to exist and be a directory
  return f;
}

Resolved resolve_form(const ModelFs& m, const Form& f) {
  NodeId at = m.cwd();
  if (f.start == Start::kFd) {
    const auto it = m.fds().find(f.fd);
    if (it == m.fds().end()) return {Outcome::kUnknown, kNoNode, {}};
    at = it->second.first;
  }
  // The path only of where the last step ends (each step's was a fresh string, then overwritten).
  Resolved r{Outcome::kOk, at, f.steps.empty() ? m.path_of(at) : std::string()};
  for (std::size_t i = 0; i < f.steps.size(); ++i) {
    const std::string& step = f.steps[i];
    const Kind k = m.node(r.node).kind;
    // openat(2): a relative path from a descriptor that is no directory is ENOTDIR (after getname()).
    if (!step.empty() && step.size() < kPathMax && step[0] != '/' && k != Kind::kDir && k != Kind::kHost)
      return {Outcome::kNotDir, kNoNode, {}};
    r = m.resolve(r.node, step, i + 1 == f.steps.size());
    if (r.outcome != Outcome::kOk) return r;
  }
  return r;
}

std::string describe(const Form& f) {
  std::string out = f.style + (f.start == Start::kFd ? " from fd " + std::to_string(f.fd) : "") + ":";
  for (const auto& s : f.steps) out += " '" + printable_excerpt(s, 300) + "'";
  return out;
}

}  // namespace breakout::paths
