// Building the real tree and its model: the attempt tree on a tmpfs, mirrored node by node into the base ModelFs.
#include "harness/paths/posix/real_tree.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "harness/paths/attempt_tree.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/platform/posix/remove_at.h"

namespace breakout::paths {

namespace fs = std::filesystem;

namespace {

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
  // The base tree as paths/attempt_tree.cc built it, labelled by path relative to the tree.
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

const std::string& RealTree::label_of(std::uint64_t dev, std::uint64_t ino) const {
  static const std::string none;
  const auto it = labels_.find({dev, ino});
  return it == labels_.end() ? none : it->second;
}

}  // namespace breakout::paths
