// Applying ops to the real tree with *at() calls (paths may pass PATH_MAX), and undoing them per input.
#include "harness/paths/posix/real_tree.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <tuple>
#include <utility>

#include "harness/core/error.h"
#include "harness/platform/posix/remove_at.h"

namespace breakout::paths {

namespace {

// Opens the directories named by `rel` below `start`, one name at a time and refusing symlinks
// (O_NOFOLLOW), so the whole may pass PATH_MAX; empty names ("a//b", a leading '/') are skipped.
// -1 with errno when a name cannot be opened.
UniqueFd walk_names(UniqueFd start, const std::string& rel) {
  UniqueFd cur = std::move(start);
  for (std::size_t i = 0; cur.get() >= 0 && i < rel.size();) {
    const std::size_t j = std::min(rel.find('/', i), rel.size());
    if (j > i) cur.reset(::openat(cur.get(), rel.substr(i, j - i).c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    i = j + 1;
  }
  return cur;
}

// Opens the directory at absolute `path` one component at a time, so its length may pass PATH_MAX.
UniqueFd open_dir_walking(const std::string& path) {
  UniqueFd cur = walk_names(UniqueFd(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)), path);
  if (cur.get() < 0) throw_errno("path-tree", "open " + path.substr(0, 200));
  return cur;
}

// Opens directory `rel` (several names, under PATH_MAX) below `dirfd` in one call, refusing a
// symlink anywhere on the way (openat2(2) RESOLVE_NO_SYMLINKS): what an O_NOFOLLOW openat per
// name did, without one call per level of a deep chain. Kernels before 5.6 (ENOSYS): per name.
int open_dir_below(int dirfd, const std::string& rel) {
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  const long fd = ::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
  return walk_names(UniqueFd(::fcntl(dirfd, F_DUPFD_CLOEXEC, 0)), rel).release();
}

std::string printable_path(const ModelFs& m, NodeId id) { return m.path_of(id).substr(0, 200); }

void record_identity(int dirfd, const std::string& name, Node& n) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) throw_errno("path-tree", "stat " + name);
  n.dev = st.st_dev;
  n.ino = st.st_ino;
}

}  // namespace

ModelFs& RealTree::reset() {
  // undo() normally ended the last input already (then this removes nothing); if it did not
  // (an exception left it), the disk is brought back to the kept prefix here.
  if (phase_ == Phase::kMatching) stop_matching();
  remove_after_kept(kept_size_);
  base_.rollback();
  phase_ = Phase::kMatching;
  matched_ = 0;
  return base_;
}

void RealTree::undo() {
  if (phase_ == Phase::kMatching) stop_matching();
  phase_ = Phase::kFree;
  remove_after_kept(kept_size_);
  base_.rollback();
}

void RealTree::clear() {
  phase_ = Phase::kFree;
  kept_size_ = 0;
  remove_after_kept(0);
  base_.rollback();
}

void RealTree::stop_matching() {
  kept_size_ = matched_;
  // A failed removal emptied gen, this input's reused names with it, which the model still has.
  if (!remove_after_kept(matched_) && matched_ > 0) throw Error("path-tree", "a kept name could not be removed; gen was emptied under a running input");
  phase_ = Phase::kRecording;
}

bool RealTree::remove_after_kept(std::size_t ops) {
  if (ops == 0) return remove_made(0, base_size_);
  return remove_made(kept_[ops - 1].made, kept_[ops - 1].nodes);
}

bool RealTree::remove_made(std::size_t keep, std::size_t nodes) {
  // Newest first: children before their directory, no readdir.
  bool clean = true;
  while (made_.size() > keep && clean) {
    Made& it = made_.back();
    const int d = it.dir == scope_.gen ? gen_fd_.get() : gen_dir(it.dir);
    if (d >= 0 && it.from_stash) {
      clean = ::renameat2(d, it.name.c_str(), stash_fd_.get(), it.chain.stash_name.c_str(), RENAME_NOREPLACE) == 0;
      if (clean) free_chains_[it.depth].push_back(std::move(it.chain));
    } else {
      clean = d >= 0 && ::unlinkat(d, it.name.c_str(), it.is_dir ? AT_REMOVEDIR : 0) == 0;
    }
    if (clean) made_.pop_back();
  }
  if (!clean) {
    clean_gen();
    return false;
  }
  // The descriptors of directories that are gone (node ids are handed out in op order).
  if (nodes < base_size_) nodes = base_size_;
  if (gen_dirs_.size() > nodes - base_size_) gen_dirs_.resize(nodes - base_size_);
  std::erase_if(gen_owned_, [nodes](const auto& owned) { return static_cast<std::size_t>(owned.first) >= nodes; });
  return true;
}

void RealTree::clean_gen() {
  made_.clear();
  kept_size_ = 0;
  gen_dirs_.clear();
  gen_owned_.clear();
  gen_fd_.reset();
  remove_at(workspace_fd_.get(), kGen);
  if (::mkdirat(workspace_fd_.get(), kGen, 0755) != 0) throw_errno("path-tree", "mkdir gen");
  gen_fd_ = UniqueFd(::openat(workspace_fd_.get(), kGen, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (gen_fd_.get() < 0) throw_errno("path-tree", "open gen");
  record_identity(workspace_fd_.get(), kGen, base_.node(scope_.gen));
}

int RealTree::dir_fd(const ModelFs& m, NodeId id) {
  if (id == scope_.gen) return gen_fd_.get();
  if (static_cast<std::size_t>(id) < base_size_) {
    // Base directories by their absolute path, once for the process.
    if (const auto it = base_dirs_.find(id); it != base_dirs_.end()) return it->second.get();
    UniqueFd fd = open_dir_walking(m.path_of(id));
    return base_dirs_.emplace(id, std::move(fd)).first->second.get();
  }
  if (const int fd = gen_dir(id); fd >= 0) return fd;
  // gen's: the names below the nearest directory already open (gen itself at worst), a deep
  // chain's 200-byte names in runs that stay under PATH_MAX, one openat2 per run.
  std::vector<NodeId>& down = down_;  // id first, up to the open ancestor (excluded)
  down.clear();
  NodeId at = id;
  while (at != scope_.gen && gen_dir(at) < 0) {
    down.push_back(at);
    at = m.node(at).parent;
  }
  int from = at == scope_.gen ? gen_fd_.get() : gen_dir(at);
  while (!down.empty()) {
    std::string& rel = rel_;
    rel.clear();
    NodeId last = kNoNode;
    while (!down.empty() && rel.size() + 1 + m.node(down.back()).name.size() < kPathMax) {
      if (!rel.empty()) rel += '/';
      rel += m.node(down.back()).name;
      last = down.back();
      down.pop_back();
    }
    UniqueFd fd(open_dir_below(from, rel));
    if (fd.get() < 0) throw_errno("path-tree", "open " + printable_path(m, last));
    from = fd.get();
    set_gen_dir(last, from);
    gen_owned_.emplace_back(last, std::move(fd));
  }
  return from;
}

int RealTree::gen_dir(NodeId id) const {
  const std::size_t i = static_cast<std::size_t>(id) - base_size_;
  return static_cast<std::size_t>(id) >= base_size_ && i < gen_dirs_.size() ? gen_dirs_[i] : -1;
}

void RealTree::set_gen_dir(NodeId id, int fd) {
  const std::size_t i = static_cast<std::size_t>(id) - base_size_;
  if (gen_dirs_.size() <= i) gen_dirs_.resize(i + 1, -1);
  gen_dirs_[i] = fd;
}

bool RealTree::apply(const Op& op, ModelFs& m) {
  if (phase_ == Phase::kMatching) {
    if (matched_ < kept_size_ && kept_[matched_].op == op) {
      // The same op on the same tree as the kept one: its result and its objects are on disk.
      const Kept& k = kept_[matched_++];
      if (k.ok && made_[k.made - 1].from_stash) record_stash(m, op, made_[k.made - 1].chain);
      return k.ok;
    }
    stop_matching();
  }
  const bool ok = apply_on_disk(op, m);
  if (phase_ == Phase::kRecording) {
    if (kept_.size() == kept_size_) kept_.emplace_back();
    Kept& k = kept_[kept_size_++];
    k.op.kind = op.kind;
    k.op.dir = op.dir;
    k.op.name.assign(op.name);
    k.op.link.assign(op.link);
    k.op.file = op.file;
    k.op.depth = op.depth;
    k.ok = ok;
    k.made = made_.size();
    k.nodes = m.size();
  }
  return ok;
}

void RealTree::record_stash(ModelFs& m, const Op& op, const Chain& chain) {
  NodeId id = m.child(op.dir, op.name);
  for (std::size_t i = 0; i < chain.ids.size() && id != kNoNode; ++i) {
    std::tie(m.node(id).dev, m.node(id).ino) = chain.ids[i];
    if (i < chain.fds.size()) set_gen_dir(id, chain.fds[i].get());
    if (i + 1 == chain.ids.size()) break;
    // apply() adds each level right after its parent: the next id when it is this one's child
    // (a child() lookup compares the 200-byte name, twice).
    const NodeId next = id + 1;
    id = static_cast<std::size_t>(next) < m.size() && m.node(next).parent == id ? next : m.child(id, deep_name());
  }
}

bool RealTree::apply_on_disk(const Op& op, ModelFs& m) {
  const int dir = dir_fd(m, op.dir);
  const char* name = op.name.c_str();
  if (op.kind == OpKind::kMkdir || op.kind == OpKind::kFile || op.kind == OpKind::kDeep) {
    // mkdir(2) of `name` (and the chain below it) or mknod(2) of a regular file, done once in
    // the stash: the name fails exactly when mkdirat/mknodat would (EEXIST: RENAME_NOREPLACE
    // never replaces anything, not even an empty directory or a dangling symlink; the directory
    // is an open descriptor on the same tmpfs, so no ENOENT, ENOTDIR or EXDEV).
    const int depth = op.kind == OpKind::kDeep ? op.depth : op.kind == OpKind::kMkdir ? 0 : kFileDepth;
    Chain chain = take_chain(depth);
    if (::renameat2(stash_fd_.get(), chain.stash_name.c_str(), dir, name, RENAME_NOREPLACE) != 0) {
      free_chains_[depth].push_back(std::move(chain));
      return false;
    }
    record_stash(m, op, chain);
    made_.push_back({op.dir, op.name, depth != kFileDepth, true, depth, std::move(chain)});
    return true;
  }
  int rc = -1;
  switch (op.kind) {
    case OpKind::kSymlink: rc = ::symlinkat(op.link.c_str(), dir, name); break;
    case OpKind::kHardlink: {
      const Node& f = m.node(op.file);
      rc = ::linkat(dir_fd(m, f.parent), f.name.c_str(), dir, name, 0);
      break;
    }
    default: break;  // made from the stash above
  }
  if (rc != 0) return false;
  made_.push_back({op.dir, op.name, false, false, 0, {}});
  // No identity to record: a hard link's node has its file's, and a symlink's is never compared
  // (forms open without O_NOFOLLOW, so neither the kernel nor ModelFs::resolve ends on a symlink;
  // its fstatat was one of an input's ~40 system calls).
  return true;
}

RealTree::Chain RealTree::take_chain(int depth) {
  auto& free = free_chains_[depth];
  if (!free.empty()) {
    Chain c = std::move(free.back());
    free.pop_back();
    return c;
  }
  Chain c;
  c.stash_name = "chain-" + std::to_string(chains_made_++);
  if (depth == kFileDepth) {
    // A regular file as open(O_CREAT | O_EXCL) makes it, in one call.
    if (::mknodat(stash_fd_.get(), c.stash_name.c_str(), S_IFREG | 0644, 0) != 0) throw_errno("path-tree", "mknod " + c.stash_name);
    struct stat st {};
    if (::fstatat(stash_fd_.get(), c.stash_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) throw_errno("path-tree", "stat " + c.stash_name);
    c.ids.emplace_back(st.st_dev, st.st_ino);
    return c;
  }
  if (::mkdirat(stash_fd_.get(), c.stash_name.c_str(), 0755) != 0) throw_errno("path-tree", "mkdir " + c.stash_name);
  UniqueFd cur(::openat(stash_fd_.get(), c.stash_name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  const std::string& d = deep_name();
  const bool keep = chain_fds_ + depth + 1 <= chain_fd_budget_;
  if (keep) chain_fds_ += depth + 1;
  for (int i = 0;; ++i) {
    struct stat st {};
    if (cur.get() < 0 || ::fstat(cur.get(), &st) != 0) throw_errno("path-tree", "open deep chain");
    c.ids.emplace_back(st.st_dev, st.st_ino);
    if (i == depth) break;
    if (::mkdirat(cur.get(), d.c_str(), 0755) != 0) throw_errno("path-tree", "mkdir deep");
    UniqueFd next(::openat(cur.get(), d.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (keep) c.fds.push_back(std::move(cur));
    cur = std::move(next);
  }
  if (keep) c.fds.push_back(std::move(cur));
  return c;
}

}  // namespace breakout::paths
