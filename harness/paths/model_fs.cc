// Path resolution over the model, step by step as path_resolution(7) and fs/namei.c describe it.
#include "harness/paths/model_fs.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <utility>

#include "harness/core/error.h"

namespace breakout::paths {

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::kOk: return "ok";
    case Outcome::kNoEnt: return "ENOENT";
    case Outcome::kNotDir: return "ENOTDIR";
    case Outcome::kLoop: return "ELOOP";
    case Outcome::kNameTooLong: return "ENAMETOOLONG";
    case Outcome::kUnknown: return "unknown";
  }
  return "?";
}

int NameLess::compare(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, a.data() + i, 8);  // a constant size: two loads, no call
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) {
      // As a big-endian number, eight bytes compare as their unsigned chars do.
      if constexpr (std::endian::native == std::endian::little) {
        x = __builtin_bswap64(x);
        y = __builtin_bswap64(y);
      }
      return x < y ? -1 : 1;
    }
  }
  for (; i < n; ++i) {
    const auto c = static_cast<unsigned char>(a[i]), d = static_cast<unsigned char>(b[i]);
    if (c != d) return c < d ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

ModelFs::ModelFs() {
  Node root;
  root.kind = Kind::kHost;
  root.parent = 0;  // "/.." is "/" (path_resolution(7))
  nodes_.push_back(root);
  paths_.emplace_back();
  size_ = 1;
  changed();
}

void ModelFs::changed() {
  static std::atomic<std::uint64_t> next{1};
  version_ = next++;
}

void ModelFs::checkpoint() {
  mark_ = size_;
  mark_version_ = version_;
  journal_.clear();
}

void ModelFs::rollback() {
  if (mark_ == 0) return;
  for (auto it = journal_.rbegin(); it != journal_.rend(); ++it)
    spare_.push_back(node(it->first).children.extract(it->second));
  journal_.clear();
  for (std::size_t i = mark_; i < size_; ++i) {
    auto& c = nodes_[i].children;
    while (!c.empty()) spare_.push_back(c.extract(c.begin()));
  }
  size_ = mark_;
  version_ = mark_version_;  // the same names as at checkpoint()
}

NodeId ModelFs::add(NodeId dir, const std::string& name, Kind kind, const std::string& link) {
  if (child(dir, name) != kNoNode) throw Error("exists", (dir == root() ? "" : path_of(dir)) + "/" + name + " is already in the model");
  if (size_ == nodes_.size()) {
    nodes_.emplace_back();
    paths_.emplace_back();
  }
  paths_[size_].clear();
  Node& n = nodes_[size_];  // a fresh node, or one a rollback() dropped: fields reset, capacity kept
  n.kind = kind;
  n.parent = dir;
  n.name.assign(name);
  n.link.assign(link);
  n.magic = Magic{};
  n.fd = -1;
  n.dev = n.ino = 0;
  n.label.clear();
  const NodeId id = static_cast<NodeId>(size_++);
  insert_child(dir, name, id);
  if (mark_ != 0 && static_cast<std::size_t>(dir) < mark_) journal_.emplace_back(dir, name);
  changed();
  return id;
}

NodeId ModelFs::add_magic(NodeId dir, const std::string& name, Magic magic, int fd) {
  const NodeId id = add(dir, name, Kind::kMagic);
  node(id).magic = magic;
  node(id).fd = fd;
  return id;
}

void ModelFs::link(NodeId dir, const std::string& name, NodeId file) {
  if (child(dir, name) != kNoNode) throw Error("exists", (dir == root() ? "" : path_of(dir)) + "/" + name + " is already in the model");
  insert_child(dir, name, file);
  if (mark_ != 0 && static_cast<std::size_t>(dir) < mark_) journal_.emplace_back(dir, name);
  changed();
}

void ModelFs::insert_child(NodeId dir, const std::string& name, NodeId id) {
  auto& c = node(dir).children;
  if (spare_.empty()) {
    c.emplace(name, id);
    return;
  }
  auto handle = std::move(spare_.back());
  spare_.pop_back();
  handle.key().assign(name);
  handle.mapped() = id;
  c.insert(std::move(handle));
}

NodeId ModelFs::child(NodeId dir, std::string_view name) const {
  const auto& c = node(dir).children;
  const auto it = c.find(name);
  return it == c.end() ? kNoNode : it->second;
}

const std::string& ModelFs::path_of(NodeId id) const {
  const Node& n = node(id);  // the range check
  std::string& path = paths_[static_cast<std::size_t>(id)];
  if (!path.empty()) return path;
  if (n.parent == id) return path.assign("/");
  // Up to the nearest ancestor whose path is kept (the root at worst), then sized once and filled
  // from the end. The ancestors on the way are not kept: a form asks for one level of a deep
  // chain, and keeping all 26 of them would copy ~70 KB.
  std::size_t size = 0;
  NodeId top = id;
  while (top != root() && paths_[static_cast<std::size_t>(top)].empty()) {
    size += 1 + nodes_[static_cast<std::size_t>(top)].name.size();
    top = nodes_[static_cast<std::size_t>(top)].parent;
  }
  const std::string_view prefix = top == root() ? std::string_view() : std::string_view(paths_[static_cast<std::size_t>(top)]);
  path.reserve(prefix.size() + size);
  path.assign(prefix);
  path.resize(prefix.size() + size, '/');
  std::size_t end = path.size();
  for (NodeId at = id; at != top; at = nodes_[static_cast<std::size_t>(at)].parent) {
    const std::string& name = nodes_[static_cast<std::size_t>(at)].name;
    end -= name.size();
    std::copy(name.begin(), name.end(), path.begin() + static_cast<std::ptrdiff_t>(end));
    --end;  // the '/' before it, already there
  }
  return path;
}

namespace {

// Pushes the components of `path` on `stack` last first, so the top is the next one to walk;
// a trailing '/' adds "." so the last object must be a directory (path_resolution(7),
// "Trailing slashes"). Empty ones ("//") are dropped. Views into `path`: it must outlive
// the walk (the input string, or a symlink's target in the const model).
void push_components(std::string_view path, std::vector<std::string_view>& stack) {
  if (!path.empty() && path.back() == '/') stack.emplace_back(".");
  // Found left to right by find() (memchr: one call per name, a deep chain's are 200 bytes), then
  // turned around so the first name is on top.
  const std::size_t bottom = stack.size();
  std::size_t i = 0;
  while (i < path.size()) {
    const std::size_t j = std::min(path.find('/', i), path.size());
    if (j > i) stack.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(bottom), stack.end());
}

}  // namespace

Resolved ModelFs::resolve(NodeId start, std::string_view path, bool with_path) const {
  Resolved r;
  resolve(start, path, r, with_path);
  return r;
}

namespace {
void set(Resolved& out, Outcome outcome, NodeId node = kNoNode) {
  out.outcome = outcome;
  out.node = node;
  out.path.clear();
}
}  // namespace

void ModelFs::resolve(NodeId start, std::string_view path, Resolved& out, bool with_path) const {
  // getname(): the string with its NUL must fit PATH_MAX; "" is ENOENT (no AT_EMPTY_PATH).
  if (path.size() >= kPathMax) return set(out, Outcome::kNameTooLong);
  if (path.empty()) return set(out, Outcome::kNoEnt);
  NodeId cur = path[0] == '/' ? root() : start;
  // A stack: back() is the next component. One per thread, its capacity kept from call to call
  // (resolve() runs several times per form and never re-enters itself): no malloc per call.
  thread_local std::vector<std::string_view> rest;
  rest.clear();
  push_components(path, rest);
  int links = 0;
  // The object the walk ends on when the last step was not a directory move; its path is then
  // already in out.path.
  NodeId final_node = kNoNode;
  while (!rest.empty()) {
    const std::string_view name = rest.back();
    rest.pop_back();
    final_node = kNoNode;
    if (name == ".") continue;  // cur is always a directory here
    if (name == "..") {
      cur = node(cur).parent;  // physical parent; "/.." stays "/"
      continue;
    }
    if (name.size() > kNameMax) return set(out, Outcome::kNameTooLong);
    NodeId next = child(cur, name);
    if (next == kNoNode) return set(out, node(cur).kind == Kind::kHost ? Outcome::kUnknown : Outcome::kNoEnt);
    const Node& n = node(next);
    if (n.kind == Kind::kSymlink || n.kind == Kind::kMagic) {
      if (++links > kMaxSymlinks) return set(out, Outcome::kLoop);  // namei.c pick_link()
    }
    if (n.kind == Kind::kSymlink) {
      if (n.link.empty()) return set(out, Outcome::kNoEnt);  // an empty target is ENOENT
      if (n.link[0] == '/') cur = root();
      push_components(n.link, rest);
      continue;
    }
    const std::string* jumped_path = nullptr;
    if (n.kind == Kind::kMagic) {
      // nd_jump_link(): straight to the object, whatever its path says now.
      if (n.magic == Magic::kRoot) next = root();
      else if (n.magic == Magic::kCwd) next = cwd_;
      else {
        const auto it = fds_.find(n.fd);
        if (it == fds_.end()) return set(out, Outcome::kUnknown);
        next = it->second.first;
        jumped_path = &it->second.second;
      }
    }
    const Node& target = node(next);
    if (is_dir(target.kind)) {
      cur = next;
      continue;
    }
    if (!rest.empty()) return set(out, Outcome::kNotDir);
    final_node = next;
    if (!with_path) continue;
    if (jumped_path && !jumped_path->empty()) out.path.assign(*jumped_path);
    else out.path.assign(cur == root() ? std::string_view() : std::string_view(path_of(cur))).append("/").append(name);
  }
  out.outcome = Outcome::kOk;
  if (final_node != kNoNode) {
    out.node = final_node;
    if (!with_path) out.path.clear();
    return;
  }
  out.node = cur;
  if (with_path) out.path.assign(path_of(cur));
  else out.path.clear();
}

}  // namespace breakout::paths
