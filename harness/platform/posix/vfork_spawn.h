// Internal to the POSIX platform layer: start a child with clone(CLONE_VM|CLONE_VFORK|CLONE_PIDFD) + execve.
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
  const char* cwd = nullptr;                // nullptr: inherit ours
  bool make_ctty = false;                   // setsid + TIOCSCTTY on fd 0 (LaunchSpec::controlling_tty)
  // LaunchSpec::inherit_dirs: parent fd (CLOEXEC, above every target number) -> child number.
  int leak_from[kMaxInheritedDirs] = {};
  int leak_to[kMaxInheritedDirs] = {};
  std::size_t leaks = 0;
};

// A started child: its pid (the caller reaps it) and a pidfd (CLOEXEC) for it.
struct Child {
  int pid = -1;
  UniqueFd pidfd;
};

// Runs the child setup and execve. Returns once the child has called execve
// successfully. When any setup step or execve fails, the child _exit(127)s, is
// reaped here, and Error("<step> for <exe>: <strerror>") is thrown.
Child start(const ChildPlan& plan);

}  // namespace breakout::vfork_spawn
