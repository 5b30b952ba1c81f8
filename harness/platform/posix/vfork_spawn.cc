// Starts a child the way glibc's posix_spawn does: clone3/clone(CLONE_VM|CLONE_VFORK) on its own stack, setup, execve.
//
// Why not fork(): fork(2) copies the page tables of the multi-threaded harness
// (and every later write by either side takes a copy-on-write fault); that was
// most of `none`'s overhead over a raw posix_spawn (docs/bench.md). Why not
// Boost.Process v2's vfork_launcher (1.81): it calls notify_fork(fork_child) in
// the vfork child, which tears down the *parent's* epoll reactor state because
// the memory is shared.
//
// The design follows glibc's posix_spawn (sysdeps/unix/sysv/linux/spawni.c,
// __spawnix / __spawni_child), with the rules of clone(2) and vfork(2):
//  * CLONE_VM: the child runs in our address space until execve, so it gets
//    its own stack (mmap'd here; clone(2): "the calling process must allocate
//    a stack for the child"), never allocates, takes no locks and calls only
//    async-signal-safe functions (signal-safety(7)). Everything it reads
//    (argv, envp, paths, fds) is prepared before cloning. errno is written
//    through the parent thread's TLS, harmless since that thread is suspended.
//  * CLONE_VFORK: "the execution of the calling process is suspended until the
//    child releases its virtual memory resources via a call to execve(2) or
//    _exit(2)" (clone(2)); only the calling thread is suspended (vfork(2)).
//    So when clone() returns the child has either exec'd or exited, and the
//    shared ChildState below already says which: exec errors come back
//    through memory, no error pipe needed (spawni.c does the same with
//    args.err).
//  * Signals: all are blocked around clone (spawni.c: "Disable asynchronous
//    cancellation ... block all signals"), so no harness handler can run on
//    the child's stack in our memory. The child (which has its own copy of the
//    dispositions: no CLONE_SIGHAND) sets every disposition to SIG_DFL first,
//    and unblocks only right before execve. Resetting the ignored ones too
//    gives the spawner a clean slate (SIG_IGN survives execve, execve(2)).
//  * CLONE_PIDFD (Linux >= 5.2, clone(2)): the pidfd comes back from clone
//    itself, CLOEXEC, no pidfd_open race with a recycled pid.
//  * CLONE_INTO_CGROUP (clone3(2), Linux >= 5.7): the child is born in the
//    box's cgroup. Writing "0" to cgroup.procs from the child instead moves a
//    running task, which takes cgroup_threadgroup_rwsem for writing
//    (kernel/cgroup/cgroup.c, cgroup_attach_lock -> percpu_down_write), and that
//    waits for an RCU grace period once the lock has been idle: 12 ms p50 here
//    for spawns 50 ms apart, against 0.2 ms for the same spawn without the join.
//    A fork takes that lock only for reading. glibc 2.36
//    exports no clone3, and the CLONE_VM child needs a trampoline onto its own
//    stack: clone3_vm.cc. Where clone3 is refused (kernel < 5.7: EINVAL/E2BIG,
//    seccomp'd containers: ENOSYS/EPERM) or the build has no trampoline, the
//    clone(2) path with the write runs, and Child::joined says which one did.
#include "harness/platform/posix/vfork_spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "harness/core/error.h"
#include "harness/platform/posix/clone3_vm.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

namespace breakout::vfork_spawn {

namespace {

// Which child setup step failed.
enum ChildStep : int {
  kStepSignals = 0, kStepStdio, kStepCgroup, kStepUserns, kStepMounts, kStepTty, kStepChdir, kStepFds, kStepExec
};

const char* step_name(int step) {
  switch (step) {
    case kStepSignals: return "resetting signals";
    case kStepStdio: return "dup2 of stdin/stdout/stderr";
    case kStepCgroup: return "joining the containment cgroup";
    case kStepUserns: return "a user namespace without user namespaces (uid_map, gid_map, max_user_namespaces)";
    case kStepMounts: return "a private mount namespace with the bind_over files";
    case kStepTty: return "setsid + TIOCSCTTY on the controlling tty";
    case kStepChdir: return "chdir to cwd";
    case kStepFds: return "marking inherited fds close-on-exec";
    default: return "execve";
  }
}

// Shared between the parent and the CLONE_VM child: the child writes, the
// parent reads after clone() returns (the vfork wait orders the two).
struct ChildState {
  const ChildPlan* plan;
  int procs_fd;      // cgroup.procs the child writes "0" to; -1: none, or born in the cgroup
  volatile int step;
  volatile int err;  // 0: execve succeeded
};

// Marks every fd >= `low` close-on-exec (child side: no malloc, no DIR*).
//
// Needed even though all our fds are created CLOEXEC: libraries and other
// threads of the harness may open inheritable fds at any time.
int mark_cloexec_from(int low) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, static_cast<unsigned>(low), ~0U, CLOSE_RANGE_CLOEXEC) == 0) return 0;
#endif
  // Kernel < 5.11: walk /proc/self/fd with raw getdents64.
  const int dfd = ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, dfd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        // struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
        unsigned short reclen;
        std::memcpy(&reclen, buf + off + 16, sizeof reclen);
        const char* name = buf + off + 19;
        int fd = 0;
        bool numeric = *name != '\0';
        for (const char* p = name; *p; ++p) {
          if (*p < '0' || *p > '9') {
            numeric = false;
            break;
          }
          fd = fd * 10 + (*p - '0');
        }
        if (numeric && fd >= low && fd != dfd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        off += reclen;
      }
    }
    ::close(dfd);
    return 0;
  }
  // No /proc either: every possible fd number.
  struct rlimit rl {};
  rlim_t max = 65536;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1u << 20))
    max = rl.rlim_cur;
  for (rlim_t fd = static_cast<rlim_t>(low); fd < max; ++fd) ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  return 0;
}

// Writes `text` to `path` (child side: raw syscalls only); false with errno set.
bool write_text(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const std::size_t n = std::strlen(text);
  const ssize_t w = ::write(fd, text, n);
  const int e = errno;
  ::close(fd);
  errno = e;
  return w == static_cast<ssize_t>(n);
}

// Records the failing step's errno for the parent and leaves without atexit
// handlers or static destructors (they belong to the parent, whose memory this is).
[[noreturn]] void child_fail(ChildState* s) {
  const int e = errno;
  s->err = e != 0 ? e : EIO;
  ::_exit(127);
}

// The child, between clone and execve. Only async-signal-safe calls.
int child_main(void* arg) {
  auto* s = static_cast<ChildState*>(arg);
  const ChildPlan& p = *s->plan;

  // 1. Dispositions to SIG_DFL while everything is still blocked (spawni.c
  //    does this for handled ones): from here on no harness handler can run in
  //    the child. sigaction() refuses glibc's internal SIGCANCEL/SIGSETXID with
  //    EINVAL; those are only ever sent to the parent's thread ids.
  s->step = kStepSignals;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);

  // 2. stdio. A source fd below 3 that is not its own target is first moved up,
  //    so no dup2 onto 0/1/2 clobbers another source.
  s->step = kStepStdio;
  int src[3] = {p.stdio[0], p.stdio[1], p.stdio[2]};
  for (int i = 0; i < 3; ++i)
    if (src[i] >= 0 && src[i] < 3 && src[i] != i && (src[i] = ::fcntl(src[i], F_DUPFD_CLOEXEC, 3)) < 0)
      child_fail(s);
  for (int i = 0; i < 3; ++i) {
    if (src[i] < 0) continue;
    // dup2 onto itself keeps FD_CLOEXEC (dup2(2)); clear it explicitly then.
    if (src[i] == i ? ::fcntl(i, F_SETFD, 0) != 0 : ::dup2(src[i], i) < 0) child_fail(s);
  }

  // 3. Join the containment cgroup before execve, so everything the spawner
  //    does afterwards is inside (cgroups(7): writing 0 moves the writer).
  s->step = kStepCgroup;
  if (s->procs_fd >= 0) {
    ssize_t n;
    do n = ::write(s->procs_fd, "0", 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) child_fail(s);
  }

  // 4. user_namespaces(7): a process may map its own ids into a namespace it just made (one
  //    line each, setgroups denied first for gid_map); as the namespace's root it may then set
  //    the namespace's own limit, which its descendants cannot raise.
  if (p.uid_map != nullptr) {
    s->step = kStepUserns;
    if (::unshare(CLONE_NEWUSER) != 0 || !write_text("/proc/self/setgroups", "deny") ||
        !write_text("/proc/self/uid_map", p.uid_map) || !write_text("/proc/self/gid_map", p.gid_map) ||
        !write_text("/proc/sys/user/max_user_namespaces", "0"))
      child_fail(s);
  }

  // 4b. mount_namespaces(7): unshare gives this task a copy of our mount namespace (the child
  //    has its own fs_struct: no CLONE_FS); private propagation first, so the binds below never
  //    reach the host's namespace; they end with the last process in the new one.
  if (p.binds > 0) {
    s->step = kStepMounts;
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      child_fail(s);
    for (std::size_t i = 0; i < p.binds; ++i)
      if (::mount(p.bind_source[i], p.bind_target[i], nullptr, MS_BIND, nullptr) != 0) child_fail(s);
  }

  // 5. credentials(7): a new session, then stdin becomes its controlling terminal.
  if (p.make_ctty) {
    s->step = kStepTty;
    if (::setsid() < 0 || ::ioctl(0, TIOCSCTTY, 0) != 0) child_fail(s);
  }

  s->step = kStepChdir;
  if (p.cwd != nullptr && ::chdir(p.cwd) != 0) child_fail(s);

  // 6. Nothing but 0/1/2 and the deliberate leaks survives execve.
  s->step = kStepFds;
  if (mark_cloexec_from(3) != 0) child_fail(s);
  for (std::size_t i = 0; i < p.leaks; ++i) {  // dup2 clears FD_CLOEXEC on the copy
    if (p.leak_from[i] == p.leak_to[i]) {
      if (::fcntl(p.leak_to[i], F_SETFD, 0) != 0) child_fail(s);
    } else if (::dup2(p.leak_from[i], p.leak_to[i]) < 0) {
      child_fail(s);
    }
  }

  // 7. An empty signal mask for the spawner, then execve. A signal arriving
  //    now takes its default action in the child; the parent resumes either way.
  s->step = kStepExec;
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(p.exe, const_cast<char* const*>(p.argv), const_cast<char* const*>(p.envp));
  child_fail(s);
}

// The child's stack: private anonymous memory with a guard page below it
// (stacks grow down on every Linux target we build for). spawni.c sizes its
// stack from argv/envp because its child runs execvpe's fallback on it; ours
// holds only child_main's frames (the getdents64 buffer is the largest).
class ChildStack {
 public:
  static constexpr std::size_t kGuard = 4096;
  static constexpr std::size_t kSize = 64 * 1024;
  ChildStack() {
    base_ = ::mmap(nullptr, kGuard + kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (base_ == MAP_FAILED) throw_errno("mmap child stack");
    if (::mprotect(base_, kGuard, PROT_NONE) != 0) {
      const int e = errno;
      ::munmap(base_, kGuard + kSize);
      errno = e;
      throw_errno("mprotect child stack guard");
    }
  }
  ~ChildStack() { ::munmap(base_, kGuard + kSize); }
  ChildStack(const ChildStack&) = delete;
  ChildStack& operator=(const ChildStack&) = delete;
  void* low() const { return static_cast<char*>(base_) + kGuard; }  // lowest usable byte (clone3's stack)
  void* top() const { return static_cast<char*>(base_) + kGuard + kSize; }

 private:
  void* base_;
};

// Blocks every signal for the calling thread; restores the old mask on scope exit.
class BlockAllSignals {
 public:
  BlockAllSignals() {
    sigset_t all;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old_);
  }
  ~BlockAllSignals() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  BlockAllSignals(const BlockAllSignals&) = delete;
  BlockAllSignals& operator=(const BlockAllSignals&) = delete;

 private:
  sigset_t old_;
};

// clone3 refused for good in this process (kernel or seccomp): later spawns go straight to clone(2).
std::atomic<bool> g_clone3_refused{false};

bool clone3_wanted(const ChildPlan& plan) {
  static const bool forced_off = [] {
    const char* v = std::getenv("BREAKOUT_SPAWN_NO_CLONE3");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  return plan.cgroup_dir_fd >= 0 && !forced_off && clone3_vm::available() &&
         !g_clone3_refused.load(std::memory_order_relaxed);
}

// clone3(CLONE_VM|CLONE_VFORK|CLONE_PIDFD|CLONE_INTO_CGROUP): -1 with errno when refused
// (then no child exists). Refusals that will not change in this process are remembered:
// ENOSYS (no clone3, or Docker's default seccomp profile), EPERM (a seccomp filter),
// E2BIG/EINVAL (5.3-5.6: no `cgroup` field, no CLONE_INTO_CGROUP). Others (EBUSY,
// EOPNOTSUPP, EACCES from the cgroup) are per cgroup: the write path reports its own.
long clone_into_cgroup(const ChildPlan& plan, ChildStack& stack, ChildState& state, int* pidfd) {
  clone3_vm::Args a;
  a.flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | CLONE_INTO_CGROUP;
  a.pidfd = reinterpret_cast<std::uintptr_t>(pidfd);
  a.exit_signal = SIGCHLD;
  a.stack = reinterpret_cast<std::uintptr_t>(stack.low());
  a.stack_size = ChildStack::kSize;
  a.cgroup = static_cast<std::uint64_t>(plan.cgroup_dir_fd);
  state.procs_fd = -1;  // already in the cgroup
  const long pid = clone3_vm::call(&a, child_main, &state);
  if (pid < 0 && (errno == ENOSYS || errno == EPERM || errno == E2BIG || errno == EINVAL))
    g_clone3_refused.store(true, std::memory_order_relaxed);
  return pid;
}

}  // namespace

const char* to_string(BoxJoin j) {
  switch (j) {
    case BoxJoin::kAtClone: return "clone3-into-cgroup";
    case BoxJoin::kProcsWrite: return "cgroup.procs-write";
    default: return "none";
  }
}

Child start(const ChildPlan& plan) {
  ChildStack stack;
  ChildState state{&plan, -1, kStepSignals, 0};
  int pidfd = -1;
  long pid = -1;
  BoxJoin joined = BoxJoin::kNone;
  {
    BlockAllSignals blocked;
    if (clone3_wanted(plan)) {
      pid = clone_into_cgroup(plan, stack, state, &pidfd);
      if (pid >= 0) joined = BoxJoin::kAtClone;
    }
    if (pid < 0) {
      state.procs_fd = plan.cgroup_procs_fd;
      joined = plan.cgroup_procs_fd >= 0 ? BoxJoin::kProcsWrite : BoxJoin::kNone;
      // SIGCHLD: the child reports its exit like a fork()ed one (waitpid without __WCLONE).
      pid = ::clone(child_main, stack.top(), CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &state, &pidfd);
    }
  }
  if (pid < 0) throw_errno(std::string("clone(CLONE_VM|CLONE_VFORK|CLONE_PIDFD) for ") + plan.exe);
  Child c;
  c.pid = static_cast<int>(pid);
  c.pidfd.reset(pidfd);
  c.joined = joined;
  if (state.err == 0) return c;

  // The child failed before or at execve and _exit(127)ed: reap it, never leave a zombie.
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  std::string what = std::string(step_name(state.step)) + " for " + plan.exe + ": " + std::strerror(state.err);
  if (state.step == kStepChdir && plan.cwd != nullptr) what += std::string(" (cwd ") + plan.cwd + ")";
  throw Error(what);
}

}  // namespace breakout::vfork_spawn
