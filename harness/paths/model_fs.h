// An in-memory model of a Linux directory tree and of path resolution over it (path_resolution(7)).
//
// The harness's own answer to "which object does this path name": directories,
// files (hard links are one node under several names), symlinks and the /proc
// magic links (root, cwd, fd/N). Directories the model only passes through
// (the host's /, /tmp, /proc/<pid>) are kHost: a name the model did not add
// there resolves to kUnknown, never to a guess. fuzz/path_model_fuzzer.cc
// checks every answer against the kernel (open O_PATH + fstat, realpath).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace breakout::paths {

using NodeId = int;
inline constexpr NodeId kNoNode = -1;

enum class Kind { kDir, kHost, kFile, kSymlink, kMagic };
// A node a path can walk into: a directory of the model or a host directory it stands for.
inline bool is_dir(Kind k) { return k == Kind::kDir || k == Kind::kHost; }
// What a /proc magic link jumps to (proc(5): /proc/pid/root, /proc/pid/cwd, /proc/pid/fd/N).
enum class Magic { kRoot, kCwd, kFd };

// Names in std::string's order (bytes as unsigned char, then the shorter first), compared inline
// eight bytes at a time. std::less<> calls memcmp, which ASan intercepts (a range check of both
// sides and libFuzzer's comparison hook per call): a deep chain's 200-byte names made map lookups
// ~7 % of path_model_fuzzer's CPU. Transparent: looked up by string_view.
struct NameLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return compare(a, b) < 0; }
  static int compare(std::string_view a, std::string_view b);
};

struct Node {
  Kind kind{};
  NodeId parent = kNoNode;  // directories: ".."; files: the directory of their first name
  std::string name;         // first name under `parent`
  std::map<std::string, NodeId, NameLess> children;
  std::string link;         // symlink target text
  Magic magic{};
  int fd = -1;              // kMagic + kFd
  std::uint64_t dev = 0, ino = 0;  // identity on the real file system (0: not recorded)
  std::string label;        // base-tree object ("home/.ssh/id_ed25519"), "" otherwise
};

// Outcomes of a resolution; errno equivalents in comments (path_resolution(7)).
enum class Outcome { kOk, kNoEnt /*ENOENT*/, kNotDir /*ENOTDIR*/, kLoop /*ELOOP*/,
                     kNameTooLong /*ENAMETOOLONG*/, kUnknown /*left the modelled names*/ };
const char* to_string(Outcome o);

struct Resolved {
  Outcome outcome = Outcome::kUnknown;
  NodeId node = kNoNode;
  std::string path;  // absolute path through the names walked: what realpath(3) returns
};

// Kernel limits (limits.h, namei.c): PATH_MAX counts the NUL, MAXSYMLINKS links per lookup.
inline constexpr std::size_t kPathMax = 4096;
inline constexpr std::size_t kNameMax = 255;
inline constexpr int kMaxSymlinks = 40;

class ModelFs {
 public:
  ModelFs();  // just "/" (kHost)
  NodeId root() const { return 0; }
  const Node& node(NodeId id) const { return nodes_.at(checked(id)); }
  Node& node(NodeId id) { return nodes_.at(checked(id)); }
  std::size_t size() const { return size_; }

  // Adds `name` under directory `dir`; throws Error("exists", "...") when taken.
  NodeId add(NodeId dir, const std::string& name, Kind kind, const std::string& link = {});
  NodeId add_magic(NodeId dir, const std::string& name, Magic magic, int fd = -1);
  // A second name for file `file` (link(2)).
  void link(NodeId dir, const std::string& name, NodeId file);
  NodeId child(NodeId dir, std::string_view name) const;  // kNoNode when absent

  void set_cwd(NodeId dir) { cwd_ = dir; }
  NodeId cwd() const { return cwd_; }
  // An open descriptor: the object and the path it was opened by (readlink of /proc/self/fd/N).
  void set_fd(int fd, NodeId id, const std::string& path) { fds_[fd] = {id, path}; }
  const std::map<int, std::pair<NodeId, std::string>>& fds() const { return fds_; }

  // Absolute path of a node through first names ("/" for the root). Kept per node once asked
  // for (a node's first name and parent never change): the reference stays valid until the
  // next add() or add_magic(), which may move the cache. Not thread-safe, like the rest.
  const std::string& path_of(NodeId id) const;
  // Resolves `path` from directory `start` (ignored for an absolute path), following
  // every symlink including the last one (open(2) without O_NOFOLLOW, realpath(3)).
  // with_path = false leaves Resolved::path empty: a multi-step form's steps before the last
  // need only the node, and a path through a deep chain is a ~5 KB string.
  Resolved resolve(NodeId start, std::string_view path, bool with_path = true) const;
  // The same into `out`, whose path keeps its capacity from call to call (no allocation per
  // form once it has grown). `path` must not view `out.path`.
  void resolve(NodeId start, std::string_view path, Resolved& out, bool with_path = true) const;

  // Marks the present tree; rollback() returns to it by dropping the nodes added since
  // and the names they got in older directories (a journal), instead of copying the
  // whole model per fuzz input. cwd and fds are not journaled: set them before checkpoint().
  void checkpoint();
  void rollback();
  // Changes whenever the names change (add, link), unique across all models; rollback()
  // restores the checkpoint's: lets callers cache what they derive from the names
  // (forms.cc under()).
  std::uint64_t version() const { return version_; }

 private:
  void changed();
  // Ids past size_ are out of range (at() throws std::out_of_range as before).
  std::size_t checked(NodeId id) const {
    return static_cast<std::size_t>(id) < size_ ? static_cast<std::size_t>(id) : nodes_.size();
  }
  void insert_child(NodeId dir, const std::string& name, NodeId id);
  // nodes_[size_..] are nodes a rollback() dropped, kept with their strings' capacity for the
  // next add(); spare_ holds the name entries rollback() took out of `children` maps, reused
  // (key and allocation) by the next insert. A deep chain is 19-26 nodes named by a 200-byte
  // name: each was a Node name, a map node and its key, three mallocs per level and input
  // (ModelFs::add was the top allocation site in perf, ~8 % of the samples, with ASan's
  // per-malloc stack trace and 0xbe fill of the first 4 KB).
  std::size_t size_ = 0;
  std::vector<std::map<std::string, NodeId, NameLess>::node_type> spare_;
  std::vector<Node> nodes_;
  // path_of()'s answers by id, "" when not asked yet; add() empties a reused one (its capacity
  // kept). Every form asks for a few paths (its target, the cwd, a descriptor's directory), and
  // building one walked up the parents into a fresh string each time: 10 of an input's ~48
  // allocations, a deep chain's 5,000+ bytes each (ASan fills the first 4 KB of every malloc).
  mutable std::vector<std::string> paths_;
  NodeId cwd_ = 0;
  std::map<int, std::pair<NodeId, std::string>> fds_;
  std::size_t mark_ = 0;  // nodes_.size() at checkpoint(); 0: no checkpoint
  std::uint64_t mark_version_ = 0;  // version() at checkpoint(), again after rollback()
  std::vector<std::pair<NodeId, std::string>> journal_;  // names added since in directories below mark_
  std::uint64_t version_ = 0;
};

}  // namespace breakout::paths
