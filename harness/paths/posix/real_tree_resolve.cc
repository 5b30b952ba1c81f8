// Resolving a form on the real tree: the kernel's answer (openat per step, fstat, the fd's /proc link).
#include "harness/paths/posix/real_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>

#include "harness/core/error.h"

namespace breakout::paths {

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
    // from either. The link name in a stack buffer: no allocation per form.
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

}  // namespace breakout::paths
