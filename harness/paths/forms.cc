// Generating operations and path forms from bytes; resolving multi-step forms over the model.
#include "harness/paths/forms.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "harness/core/text.h"

namespace breakout::paths {

namespace {

// Awkward names: a newline, non-UTF-8 bytes, leading dashes (argv
// injection), spaces, quotes, '$', names that look like '.' and '..'.
constexpr const char* kNames[] = {"a", "b", "c", "-rf", "--x=y", "new\nline", "\xff\xfe", "sp ace",
                                  "...", "$HOME", "q'\"", "..a", ".hidden", "existing.txt"};
std::string_view pick_name(ByteReader& in) { return kNames[in.pick(std::size(kNames))]; }

bool is_dir(const ModelFs& m, NodeId id) { return is_dir(m.node(id).kind); }

// walk_under(), kept while the names stay the same (ModelFs::version()): one fuzz input asks
// for the same two lists (the tree, gen) at every op and form in between, and every input
// starts from the same base tree (its version comes back with rollback()). With it, the
// nodes of each kind in the same order (next_op's directories and files, next_form's
// symlinks). A replaced entry reuses its vectors' capacity: no allocation per op once they
// are grown (each malloc under ASan records a stack, and ops change the version every time).
// Not thread-safe across threads sharing a model: one cache per thread.
struct Under {
  std::uint64_t version = 0;
  NodeId top = kNoNode;
  std::uint64_t used = 0;
  std::vector<NodeId> nodes;
  std::vector<NodeId> of_kind[5];  // indexed by Kind
};

// Every node under `top` by first name (symlinks not followed), `top` first, breadth first,
// into `u` (its capacity reused), and each kind's in the same order. Only files have second
// names (link(2) refuses a directory: EPERM), so a directory entry is its first name without
// comparing names (deep chains: 200-byte names); a file's is compared inline (NameLess).
void walk_under(const ModelFs& m, NodeId top, Under& u) {
  u.nodes.assign(1, top);
  for (auto& v : u.of_kind) v.clear();
  u.of_kind[static_cast<std::size_t>(m.node(top).kind)].push_back(top);
  for (std::size_t i = 0; i < u.nodes.size(); ++i) {
    const NodeId dir = u.nodes[i];
    const Node& d = m.node(dir);
    if (!is_dir(d.kind)) continue;
    for (const auto& [name, id] : d.children) {
      const Node& n = m.node(id);
      if (n.parent != dir || !(is_dir(n.kind) || NameLess::compare(n.name, name) == 0)) continue;
      u.nodes.push_back(id);
      u.of_kind[static_cast<std::size_t>(n.kind)].push_back(id);
    }
  }
}

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
  walk_under(m, top, *oldest);
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

// Appends `to` relative to directory `from` (both absolute, symlink-free: ".." is then
// physical) to `out`, "." when they are the same. The name lists live per thread and keep their
// capacity. Neither `to` nor `from` may be `out`.
void append_relative(std::string& out, std::string_view to, std::string_view from) {
  thread_local std::vector<std::string_view> t, f;
  components(to, t);
  components(from, f);
  std::size_t common = 0;
  while (common < t.size() && common < f.size() && t[common] == f[common]) ++common;
  const std::size_t start = out.size();
  out.reserve(start + 3 * (f.size() - common) + to.size());
  for (std::size_t i = common; i < f.size(); ++i) out += out.size() == start ? ".." : "/..";
  for (std::size_t i = common; i < t.size(); ++i) {
    if (out.size() != start) out += '/';
    out += t[i];
  }
  if (out.size() == start) out += '.';
}

// Appends `s` to `out` with '//', '/./' at separators and a trailing '/': the kernel skips all
// three (path_resolution(7)). `s` must not view `out`.
void append_decorated(ByteReader& in, std::string_view s, std::string& out) {
  const std::uint8_t how = in.byte();
  if ((how & 3) == 0) {
    out.append(s);
    if (how & 4) out += '/';
    return;
  }
  // Copied a name at a time (a deep chain's path has 5,000+ bytes, 26 separators).
  out.reserve(out.size() + s.size() + 64);
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t slash = s.find('/', i);
    if (slash == std::string_view::npos) {
      out.append(s.substr(i));
      break;
    }
    out.append(s.substr(i, slash + 1 - i));
    if ((how & 1) && in.flag()) out += '/';
    if ((how & 2) && in.flag()) out += "./";
    i = slash + 1;
  }
  if (how & 4) out += '/';
}

// append_decorated() of `to` relative to `from` (the relative text in a per-thread buffer).
void append_decorated_relative(ByteReader& in, std::string_view to, std::string_view from, std::string& out) {
  thread_local std::string rel;
  rel.clear();
  append_relative(rel, to, from);
  append_decorated(in, rel, out);
}

// A target: an existing node of the tree, an ancestor of the tree, or a name not made yet.
// The reference is the model's own path_of() or a per-thread buffer: valid until the next call.
const std::string& target_path(ByteReader& in, const ModelFs& m, const Scope& scope) {
  const auto& nodes = nodes_under(m, scope.tree);
  const std::size_t n = in.pick(nodes.size() + 3);
  if (n < nodes.size()) return m.path_of(nodes[n]);
  if (n == nodes.size()) return m.path_of(m.node(scope.tree).parent);
  thread_local std::string missing;  // missing now, maybe made by a later op
  missing.assign(m.path_of(scope.gen)).append("/").append(pick_name(in));
  return missing;
}

// A descriptor of the model and the path it was opened by ("/" when there is none).
std::pair<int, const std::string*> pick_fd(ByteReader& in, const ModelFs& m) {
  static const std::string slash = "/";
  const auto& fds = m.fds();
  if (fds.empty()) return {-1, &slash};
  auto it = fds.begin();
  std::advance(it, static_cast<long>(in.pick(fds.size())));
  // A descriptor of a file has no children: relative forms from it must fail with ENOTDIR.
  return {it->first, &it->second.second};
}

// Appends a one-string spelling of `target` to `out`, relative ones from directory `base` (a
// symlink's directory, or the cwd). Sets `fd` for the dirfd style. `out` must be neither
// `target` nor `base`.
void append_one_string(ByteReader& in, const ModelFs& m, const std::string& target, const std::string& base,
                       int& fd, std::string& style, std::string& out) {
  switch (in.pick(8)) {
    case 0: style = "absolute"; return append_decorated(in, target, out);
    case 1: style = "relative"; return append_decorated_relative(in, target, base, out);
    case 2: style = "proc-root"; out += "/proc/self/root"; return append_decorated(in, target, out);
    case 3:
      style = "proc-cwd";
      out += "/proc/self/cwd/";
      return append_decorated_relative(in, target, m.path_of(m.cwd()), out);
    case 4:
    case 5: {
      const auto [n, path] = pick_fd(in, m);
      style = in.flag() ? "dev-fd" : "proc-fd";
      out += style == "dev-fd" ? "/dev/fd/" : "/proc/self/fd/";
      out += std::to_string(n);
      if (target == *path) return;
      out += '/';
      return append_decorated_relative(in, target, *path, out);
    }
    case 6: {
      style = "dirfd";
      const auto [n, path] = pick_fd(in, m);
      fd = n;
      return append_decorated_relative(in, target, *path, out);
    }
    default: {
      style = "overshoot";  // "/.." is "/" (path_resolution(7))
      for (std::size_t i = 0, n = 1 + in.pick(4); i < n; ++i) out += "/..";
      out += target;
      return;
    }
  }
}

}  // namespace

const std::string& deep_name() {
  static const std::string name(kDeepNameLength, 'd');
  return name;
}

Op next_op(ByteReader& in, const ModelFs& m, const Scope& scope) {
  Op op;
  next_op(in, m, scope, op);
  return op;
}

void next_op(ByteReader& in, const ModelFs& m, const Scope& scope, Op& op) {
  const std::vector<NodeId>& dirs = nodes_under(m, scope.gen, Kind::kDir);
  op.kind = static_cast<OpKind>(in.pick(5));
  op.dir = dirs[in.pick(dirs.size())];
  op.name.assign(pick_name(in));
  op.link.clear();
  op.file = kNoNode;
  op.depth = 0;
  if (op.kind == OpKind::kSymlink) {
    const std::uint8_t how = in.byte() % 8;
    if (how == 0) op.link = op.name;  // a loop: ELOOP
    else if (how == 1) op.link.clear();  // symlink(2) refuses an empty target: the op fails
    else {
      int fd = -1;
      thread_local std::string style, text;
      text.clear();
      const std::string& target = target_path(in, m, scope);
      append_one_string(in, m, target, m.path_of(op.dir), fd, style, text);
      if (fd >= 0) op.link.append("/proc/self/fd/").append(std::to_string(fd)).append("/");
      op.link.append(text);
    }
  } else if (op.kind == OpKind::kHardlink) {
    const std::vector<NodeId>& files = nodes_under(m, scope.tree, Kind::kFile);
    if (files.empty()) op.kind = OpKind::kFile;
    else op.file = files[in.pick(files.size())];
  } else if (op.kind == OpKind::kDeep) {
    op.depth = 18 + static_cast<int>(in.pick(8));  // 18 x 201 bytes: past PATH_MAX from the workspace
  }
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
  next_form(in, m, scope, f);
  return f;
}

namespace {
// Gives `f` exactly `n` steps, from a per-thread pool of spare strings with their capacity kept:
// the steps a walk form adds are not freed by the next form's one step, so an input makes and
// frees the same number of blocks (libFuzzer re-runs an input that ends with more mallocs than
// frees under a leak check, FuzzerLoop.cpp TryDetectingAMemoryLeak).
void resize_steps(Form& f, std::size_t n) {
  thread_local std::vector<std::string> spare;
  while (f.steps.size() > n) {
    spare.push_back(std::move(f.steps.back()));
    f.steps.pop_back();
  }
  while (f.steps.size() < n) {
    if (spare.empty()) {
      f.steps.emplace_back();
      continue;
    }
    f.steps.push_back(std::move(spare.back()));
    spare.pop_back();
  }
}
}  // namespace

void next_form(ByteReader& in, const ModelFs& m, const Scope& scope, Form& f) {
  f.start = Start::kPath;
  f.fd = -1;
  const std::string& target = target_path(in, m, scope);
  const std::size_t style = in.pick(4);
  if (style == 0) {
    // Through a symlink made in the workspace: the symlink's own path, then on from where it leads.
    const std::vector<NodeId>& links = nodes_under(m, scope.gen, Kind::kSymlink);
    if (!links.empty()) {
      const NodeId s = links[in.pick(links.size())];
      resize_steps(f, 1);
      std::string& link_path = f.steps[0];
      link_path.assign(m.path_of(s));
      thread_local Resolved via;
      m.resolve(m.root(), link_path, via);
      f.style = "via-symlink";
      const bool onward = via.outcome == Outcome::kOk && is_dir(m, via.node) && in.flag();
      if (onward) {
        link_path += '/';
        append_relative(link_path, target, via.path);
      }
      return;
    }
  }
  if (style == 1) {
    // Walking: each step short, the whole possibly past PATH_MAX (openat from the previous step).
    f.style = "walk";
    thread_local std::vector<std::string_view> parts;
    components(target, parts);
    std::size_t used = 0;
    const auto next_step = [&f, &used]() -> std::string& {
      resize_steps(f, std::max(f.steps.size(), used + 1));
      std::string& step = f.steps[used++];
      step.clear();
      return step;
    };
    std::string* step = &next_step();
    *step = "/";
    for (const auto& p : parts) {
      if (step->size() + p.size() > 1000) step = &next_step();
      if (!step->empty() && *step != "/") *step += '/';
      *step += p;
    }
    resize_steps(f, used);
    return;
  }
  int fd = -1;
  resize_steps(f, 1);
  std::string& text = f.steps[0];
  text.clear();
  append_one_string(in, m, target, m.path_of(m.cwd()), fd, f.style, text);
  if (fd >= 0) {
    f.start = Start::kFd;
    f.fd = fd;
  }
  if (style == 2) text.append("/").append(pick_name(in)).append("/..");  // "x/.." needs x to exist and be a directory
}

Resolved resolve_form(const ModelFs& m, const Form& f) {
  Resolved r;
  resolve_form(m, f, r);
  return r;
}

void resolve_form(const ModelFs& m, const Form& f, Resolved& r) {
  r.path.clear();
  NodeId at = m.cwd();
  if (f.start == Start::kFd) {
    const auto it = m.fds().find(f.fd);
    if (it == m.fds().end()) {
      r.outcome = Outcome::kUnknown;
      r.node = kNoNode;
      return;
    }
    at = it->second.first;
  }
  // The path only of where the last step ends (each step's was a fresh string, then overwritten).
  r.outcome = Outcome::kOk;
  r.node = at;
  if (f.steps.empty()) r.path.assign(m.path_of(at));
  for (std::size_t i = 0; i < f.steps.size(); ++i) {
    const std::string& step = f.steps[i];
    const Kind k = m.node(r.node).kind;
    // openat(2): a relative path from a descriptor that is no directory is ENOTDIR (after getname()).
    if (!step.empty() && step.size() < kPathMax && step[0] != '/' && k != Kind::kDir && k != Kind::kHost) {
      r.outcome = Outcome::kNotDir;
      r.node = kNoNode;
      r.path.clear();
      return;
    }
    m.resolve(r.node, step, r, i + 1 == f.steps.size());
    if (r.outcome != Outcome::kOk) return;
  }
}

std::string describe(const Form& f) {
  std::string out = f.style + (f.start == Start::kFd ? " from fd " + std::to_string(f.fd) : "") + ":";
  for (const auto& s : f.steps) out += " '" + printable_excerpt(s, 300) + "'";
  return out;
}

}  // namespace breakout::paths
