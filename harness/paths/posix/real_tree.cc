// Building the real tree and its model, applying ops with *at() calls (paths may pass PATH_MAX), resolving forms.
#include "harness/paths/posix/real_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <tuple>

#include "harness/attempt/tree.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"

namespace breakout::paths {

namespace fs = std::filesystem;

Outcome outcome_of(int err) {
  switch (err) {
    case 0: return Outcome::kOk;
    case ENOENT: return Outcome::kNoEnt;
    case ENOTDIR: return Outcome::kNotDir;
    case ELOOP: return Outcome::kLoop;
    case ENAMETOOLONG: return Outcome::kNameTooLong;
    default: return Outcome::kUnknown;
  }
}

namespace {

constexpr const char* kGen = "gen";

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

// Removes `name` under `dirfd` recursively without following symlinks (depth unbounded by PATH_MAX).
void remove_at(int dirfd, const char* name) {
  if (::unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d))
    if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..") names.emplace_back(e->d_name);
  for (const auto& n : names) remove_at(::dirfd(d), n.c_str());
  ::closedir(d);
  ::unlinkat(dirfd, name, AT_REMOVEDIR);
}

std::string printable_path(const ModelFs& m, NodeId id) { return m.path_of(id).substr(0, 200); }

void record_identity(int dirfd, const std::string& name, Node& n) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) throw_errno("path-tree", "stat " + name);
  n.dev = st.st_dev;
  n.ino = st.st_ino;
}

// Trees "breakout-paths-<pid>-*" of processes that no longer run (a crash skips destructors).
void remove_stale_trees(const fs::path& tmp) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("breakout-paths-", 0) != 0) continue;
    const long pid = std::strtol(n.c_str() + 15, nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      UniqueFd parent(::open(tmp.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (parent.get() >= 0) remove_at(parent.get(), n.c_str());
    }
  }
}

// A tmpfs when there is one: resetting the tree per input is metadata work, about
// 20x cheaper on tmpfs than on an ext4 /tmp (measured: ~100 vs ~2,000 exec/s under ASan).
fs::path scratch_root() {
  std::error_code ec;
  if (fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return fs::canonical(fs::temp_directory_path());
}

}  // namespace

RealTree::RealTree() {
  const fs::path tmp = scratch_root();
  remove_stale_trees(tmp);
  std::string tmpl = (tmp / ("breakout-paths-" + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw_errno("path-tree", "mkdtemp " + tmpl);
  work_ = tmpl;
  tree_ = std::make_unique<AttemptTree>(work_, 0, random_hex(4));
  if (::mkdir((work_ + "/deep-stash").c_str(), 0755) != 0) throw_errno("path-tree", "mkdir deep-stash");
  stash_fd_ = UniqueFd(::open((work_ + "/deep-stash").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (rlimit lim{}; ::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
    chain_fd_budget_ = static_cast<int>(std::min<rlim_t>(static_cast<rlim_t>(chain_fd_budget_), lim.rlim_cur / 2));
  if (stash_fd_.get() < 0) throw_errno("path-tree", "open deep-stash");
  const TreeRoots& r = tree_->roots();
  fs::create_directory(r.workspace / kGen);

  // The host directories above the tree: only the names on the way are modelled.
  auto host_dir = [this](NodeId parent, const std::string& name) {
    const NodeId c = base_.child(parent, name);
    return c != kNoNode ? c : base_.add(parent, name, Kind::kHost);
  };
  NodeId at = base_.root();
  auto stat_into = [](const std::string& path, Node& n) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) throw_errno("path-tree", "stat " + path);
    n.dev = st.st_dev;
    n.ino = st.st_ino;
  };
  stat_into("/", base_.node(at));
  for (const auto& part : r.tree.relative_path()) {
    at = host_dir(at, part.string());
    stat_into(base_.path_of(at), base_.node(at));
  }
  scope_.tree = at;
  base_.node(at).kind = Kind::kDir;
  base_.node(at).label = ".";
  labels_[{base_.node(at).dev, base_.node(at).ino}] = ".";
  // The base tree as attempt/tree.cc built it, labelled by path relative to the tree.
  std::map<fs::path, NodeId> ids{{r.tree, at}};
  for (const auto& e : fs::recursive_directory_iterator(r.tree)) {
    const Kind kind = e.is_symlink() ? Kind::kSymlink : e.is_directory() ? Kind::kDir : Kind::kFile;
    const NodeId id = base_.add(ids.at(e.path().parent_path()), e.path().filename().string(), kind,
                                kind == Kind::kSymlink ? fs::read_symlink(e.path()).string() : "");
    ids[e.path()] = id;
    Node& n = base_.node(id);
    stat_into(e.path().string(), n);
    n.label = e.path().lexically_relative(r.tree).string();
    labels_[{n.dev, n.ino}] = n.label;
  }
  scope_.gen = ids.at(r.workspace / kGen);
  // Emptied and made again per input: not a base object.
  labels_.erase({base_.node(scope_.gen).dev, base_.node(scope_.gen).ino});
  base_.node(scope_.gen).label.clear();

  // proc(5): /proc/self -> <pid>; root, cwd and fd/N are magic links. /dev/fd -> /proc/self/fd.
  const NodeId proc = host_dir(base_.root(), "proc");
  const std::string pid = std::to_string(::getpid());
  const NodeId me = base_.add(proc, pid, Kind::kHost);
  base_.add(proc, "self", Kind::kSymlink, pid);
  base_.add_magic(me, "root", Magic::kRoot);
  base_.add_magic(me, "cwd", Magic::kCwd);
  const NodeId fd_dir = base_.add(me, "fd", Kind::kHost);
  base_.add(host_dir(base_.root(), "dev"), "fd", Kind::kSymlink, "/proc/self/fd");
  workspace_fd_ = UniqueFd(::open(r.workspace.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (workspace_fd_.get() < 0) throw_errno("path-tree", "open workspace");
  gen_fd_ = UniqueFd(::openat(workspace_fd_.get(), kGen, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (gen_fd_.get() < 0) throw_errno("path-tree", "open gen");
  cwd_fd_ = UniqueFd(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  proc_fds_ = UniqueFd(::open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (proc_fds_.get() < 0) throw_errno("path-tree", "open /proc/self/fd");
  base_.set_cwd(ids.at(r.workspace));
  for (const fs::path& p : {r.tree, r.workspace, r.workspace / "sub dir", r.sibling, r.home, r.home / ".ssh/id_ed25519"}) {
    UniqueFd fd(::open(p.c_str(), O_PATH | O_CLOEXEC));
    if (fd.get() < 0) throw_errno("path-tree", "open " + p.string());
    base_.set_fd(fd.get(), ids.at(p), p.string());
    base_.add_magic(fd_dir, std::to_string(fd.get()), Magic::kFd, fd.get());
    fds_.push_back(std::move(fd));
  }
  base_size_ = base_.size();
  base_.checkpoint();
}

RealTree::~RealTree() {
  fds_.clear();
  stash_fd_.reset();
  gen_dirs_.clear();
  gen_owned_.clear();
  free_chains_.clear();
  base_dirs_.clear();
  gen_fd_.reset();
  workspace_fd_.reset();
  if (work_.empty()) return;
  // gen first, by *at() calls: its deep chains are past PATH_MAX for path-based removal.
  if (tree_) {
    UniqueFd ws(::open(tree_->roots().workspace.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (ws.get() >= 0) remove_at(ws.get(), kGen);
  }
  tree_.reset();
  UniqueFd tmp(::open(fs::path(work_).parent_path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (tmp.get() >= 0) remove_at(tmp.get(), fs::path(work_).filename().c_str());
}

const TreeRoots& RealTree::roots() const { return tree_->roots(); }

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

RealResolved RealTree::resolve(const Form& form) {
  RealResolved r;
  resolve(form, r);
  return r;
}

RealTree::InWorkspace::InWorkspace(const RealTree& tree) : tree_(tree) {
  if (tree_.in_workspace_) throw Error("path-tree", "already in the workspace");
  if (::fchdir(tree_.workspace_fd_.get()) != 0) throw_errno("path-tree", "chdir workspace");
  tree_.in_workspace_ = true;
}

RealTree::InWorkspace::~InWorkspace() {
  tree_.in_workspace_ = false;
  // A destructor cannot throw: a failed chdir back leaves the cwd in the workspace, which the
  // next resolve() outside an InWorkspace tries again (and throws there).
  if (tree_.cwd_fd_.get() >= 0) (void)::fchdir(tree_.cwd_fd_.get());
}

void RealTree::resolve(const Form& form, RealResolved& r) {
  // The disk must be this input's ops and nothing else: kept ops it did not repeat go now, and
  // its later ops are its own (removed by undo()).
  if (phase_ == Phase::kMatching) stop_matching();
  phase_ = Phase::kFree;
  r.err = 0;
  r.dev = r.ino = 0;
  r.fd_path_err = 0;
  r.fd_path.clear();
  // The cwd is the workspace for the duration (the model's cwd); restored after, unless an
  // InWorkspace holds it there for longer.
  const bool own_cwd = !in_workspace_;
  if (own_cwd && ::fchdir(workspace_fd_.get()) != 0) throw_errno("path-tree", "chdir workspace");
  UniqueFd cur;
  int at = form.start == Start::kFd ? form.fd : AT_FDCWD;
  for (const auto& step : form.steps) {
    cur.reset(::openat(at, step.c_str(), O_PATH | O_CLOEXEC));
    if (cur.get() < 0) {
      r.err = errno;
      break;
    }
    at = cur.get();
  }
  if (r.err == 0) {
    struct stat st {};
    if (::fstat(cur.get(), &st) != 0) throw_errno("path-tree", "fstat");
    r.dev = st.st_dev;
    r.ino = st.st_ino;
    // The kernel's own path of the object it opened (d_path of the fd, proc(5)). No realpath(3)
    // beside it: its answer was compared with the same model path only after this one had to
    // match, so it could only tell glibc's user-space walk (a readlink(2) per component, ~6.5
    // calls per form, the most expensive syscalls here) from the kernel's, never the model
    // from either (docs/fuzzing.md). The link name in a stack buffer: no allocation per form.
    // readlinkat(2) from /proc/self/fd, open since the start: one name to look up per form
    // instead of four ("proc", the "self" symlink, "fd", N).
    char link[16];
    std::snprintf(link, sizeof link, "%d", cur.get());
    char buf[PATH_MAX];
    const ssize_t n = ::readlinkat(proc_fds_.get(), link, buf, sizeof buf);
    if (n < 0) r.fd_path_err = errno;
    else r.fd_path.assign(buf, static_cast<std::size_t>(n));
  }
  if (own_cwd && cwd_fd_.get() >= 0 && ::fchdir(cwd_fd_.get()) != 0) throw_errno("path-tree", "chdir back");
}

const std::string& RealTree::label_of(std::uint64_t dev, std::uint64_t ino) const {
  static const std::string none;
  const auto it = labels_.find({dev, ino});
  return it == labels_.end() ? none : it->second;
}

}  // namespace breakout::paths
