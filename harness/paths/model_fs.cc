// Path resolution over the model, step by step as path_resolution(7) and fs/namei.c describe it.
#include "harness/paths/model_fs.h"

#include <deque>

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

ModelFs::ModelFs() {
  Node root;
  root.kind = Kind::kHost;
  root.parent = 0;  // "/.." is "/" (path_resolution(7))
  nodes_.push_back(root);
}

NodeId ModelFs::add(NodeId dir, const std::string& name, Kind kind, const std::string& link) {
  if (child(dir, name) != kNoNode) throw Error("[exists] " + (dir == root() ? "" : path_of(dir)) + "/" + name + " is already in the model");
  Node n;
  n.kind = kind;
  n.parent = dir;
  n.name = name;
  n.link = link;
  nodes_.push_back(std::move(n));
  const NodeId id = static_cast<NodeId>(nodes_.size() - 1);
  node(dir).children[name] = id;
  return id;
}

NodeId ModelFs::add_magic(NodeId dir, const std::string& name, Magic magic, int fd) {
  const NodeId id = add(dir, name, Kind::kMagic);
  node(id).magic = magic;
  node(id).fd = fd;
  return id;
}

void ModelFs::link(NodeId dir, const std::string& name, NodeId file) {
  if (child(dir, name) != kNoNode) throw Error("[exists] " + (dir == root() ? "" : path_of(dir)) + "/" + name + " is already in the model");
  node(dir).children[name] = file;
}

NodeId ModelFs::child(NodeId dir, const std::string& name) const {
  const auto& c = node(dir).children;
  const auto it = c.find(name);
  return it == c.end() ? kNoNode : it->second;
}

std::string ModelFs::path_of(NodeId id) const {
  if (id == root()) return "/";
  std::vector<const std::string*> names;
  for (NodeId n = id; n != root(); n = node(n).parent) names.push_back(&node(n).name);
  std::string out;
  for (auto it = names.rbegin(); it != names.rend(); ++it) out += "/" + **it;
  return out;
}

namespace {

bool is_dir(Kind k) { return k == Kind::kDir || k == Kind::kHost; }

// Components of `path` in order; a trailing '/' adds "." so the last object must
// be a directory (path_resolution(7), "Trailing slashes"). Empty ones ("//") are dropped.
void push_components(std::string_view path, std::deque<std::string>& out) {
  std::deque<std::string> parts;
  std::size_t i = 0;
  while (i <= path.size()) {
    const std::size_t j = std::min(path.find('/', i), path.size());
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  if (!path.empty() && path.back() == '/') parts.emplace_back(".");
  out.insert(out.begin(), parts.begin(), parts.end());
}

}  // namespace

Resolved ModelFs::resolve(NodeId start, std::string_view path) const {
  // getname(): the string with its NUL must fit PATH_MAX; "" is ENOENT (no AT_EMPTY_PATH).
  if (path.size() >= kPathMax) return {Outcome::kNameTooLong, kNoNode, {}};
  if (path.empty()) return {Outcome::kNoEnt, kNoNode, {}};
  NodeId cur = path[0] == '/' ? root() : start;
  std::deque<std::string> rest;
  push_components(path, rest);
  int links = 0;
  // The object the walk ends on when the last step was not a directory move.
  NodeId final_node = kNoNode;
  std::string final_path;
  while (!rest.empty()) {
    const std::string name = std::move(rest.front());
    rest.pop_front();
    final_node = kNoNode;
    if (name == ".") continue;  // cur is always a directory here
    if (name == "..") {
      cur = node(cur).parent;  // physical parent; "/.." stays "/"
      continue;
    }
    if (name.size() > kNameMax) return {Outcome::kNameTooLong, kNoNode, {}};
    NodeId next = child(cur, name);
    if (next == kNoNode) return {node(cur).kind == Kind::kHost ? Outcome::kUnknown : Outcome::kNoEnt, kNoNode, {}};
    const Node& n = node(next);
    if (n.kind == Kind::kSymlink || n.kind == Kind::kMagic) {
      if (++links > kMaxSymlinks) return {Outcome::kLoop, kNoNode, {}};  // namei.c pick_link()
    }
    if (n.kind == Kind::kSymlink) {
      if (n.link.empty()) return {Outcome::kNoEnt, kNoNode, {}};  // an empty target is ENOENT
      if (n.link[0] == '/') cur = root();
      push_components(n.link, rest);
      continue;
    }
    std::string jumped_path;
    if (n.kind == Kind::kMagic) {
      // nd_jump_link(): straight to the object, whatever its path says now.
      if (n.magic == Magic::kRoot) next = root();
      else if (n.magic == Magic::kCwd) next = cwd_;
      else {
        const auto it = fds_.find(n.fd);
        if (it == fds_.end()) return {Outcome::kUnknown, kNoNode, {}};
        next = it->second.first;
        jumped_path = it->second.second;
      }
    }
    const Node& target = node(next);
    if (is_dir(target.kind)) {
      cur = next;
      continue;
    }
    if (!rest.empty()) return {Outcome::kNotDir, kNoNode, {}};
    final_node = next;
    final_path = !jumped_path.empty() ? jumped_path : (cur == root() ? "" : path_of(cur)) + "/" + name;
  }
  if (final_node != kNoNode) return {Outcome::kOk, final_node, final_path};
  return {Outcome::kOk, cur, path_of(cur)};
}

}  // namespace breakout::paths
