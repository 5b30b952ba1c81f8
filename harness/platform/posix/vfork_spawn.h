// Internal to the POSIX platform layer: start a child with clone3/clone(CLONE_VM|CLONE_VFORK|CLONE_PIDFD) + execve.
//
//   vfork_spawn::ChildPlan plan{.exe = "/bin/true", .argv = argv, .envp = envp, .stdio = {in, out, err}};
//   vfork_spawn::Child c = vfork_spawn::start(plan);  // throws Error; a failed child is already reaped
//   ... wait on c.pidfd, or waitpid(c.pid) ...
#pragma once

#include <cstddef>

#include "harness/platform/posix/unique_fd.h"
#include "harness/platform/process.h"

namespace breakout::vfork_spawn {

// Everything the child reads, prepared by the parent before clone(2): the child
// shares our memory and may not allocate, lock or throw (async-signal-safe only).
struct ChildPlan {
  const char* exe = nullptr;                // resolved path given to execve
  const char* const* argv = nullptr;        // NULL-terminated; argv[0] as the child should see it
  const char* const* envp = nullptr;        // NULL-terminated, passed exactly
  int stdio[3] = {-1, -1, -1};              // become fds 0/1/2 (-1: leave that fd as inherited)
  int cgroup_procs_fd = -1;                 // >= 0: the child writes "0" to it (joins that cgroup v2)
  int cgroup_dir_fd = -1;                   // >= 0: that cgroup's directory: the child is born in it
                                            // (clone3 CLONE_INTO_CGROUP); the write is the fallback
  const char* cwd = nullptr;                // nullptr: inherit ours
  bool make_ctty = false;                   // setsid + TIOCSCTTY on fd 0 (LaunchSpec::controlling_tty)
  // LaunchSpec::inherit_fds: parent fd (CLOEXEC, above every target number) -> child number.
  int leak_from[kMaxInheritedFds] = {};
  int leak_to[kMaxInheritedFds] = {};
  std::size_t leaks = 0;
  // LaunchSpec::bind_over: a private mount namespace, then each source bound onto its target.
  const char* bind_source[kMaxBindOver] = {};
  const char* bind_target[kMaxBindOver] = {};
  std::size_t binds = 0;
  // LaunchSpec::user_namespaces_off: unshare CLONE_NEWUSER, then these lines into the child's own
  // /proc/self/uid_map and gid_map ("ID ID 1\n"), and "0" into max_user_namespaces.
  const char* uid_map = nullptr;  // nullptr: no user namespace
  const char* gid_map = nullptr;
};

// How the child entered the plan's cgroup.
enum class BoxJoin {
  kNone,        // no cgroup in the plan
  kAtClone,     // clone3(CLONE_INTO_CGROUP): in the cgroup from its first instruction
  kProcsWrite,  // the child wrote "0" to cgroup.procs before execve (clone3 refused or unavailable)
};
const char* to_string(BoxJoin j);

// A started child: its pid (the caller reaps it), a pidfd (CLOEXEC) for it, and how it joined.
struct Child {
  int pid = -1;
  UniqueFd pidfd;
  BoxJoin joined = BoxJoin::kNone;
};

// Runs the child setup and execve. Returns once the child has called execve
// successfully. When any setup step or execve fails, the child _exit(127)s, is
// reaped here, and Error("<step> for <exe>: <strerror>") is thrown.
// With plan.cgroup_dir_fd, clone3(CLONE_INTO_CGROUP) is tried first; when the kernel or a
// seccomp filter refuses it, the clone(2) path with the cgroup.procs write runs instead
// (BREAKOUT_SPAWN_NO_CLONE3=1 forces that path: tests and measurements).
Child start(const ChildPlan& plan);

}  // namespace breakout::vfork_spawn
