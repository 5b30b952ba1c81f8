// Internal to the POSIX platform layer: raw clone3(2) that runs a function on its own stack in the child (CLONE_VM-safe).
//
//   clone3_vm::Args a{.flags = CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP, .cgroup = dirfd, ...};
//   long pid = clone3_vm::call(&a, child_main, &state);  // child: child_main(&state) on a.stack, then exit
//   if (pid < 0) ... errno: ENOSYS where unavailable (see available()), else the kernel's refusal
#pragma once

#include <cstdint>

namespace breakout::clone3_vm {

// struct clone_args of <linux/sched.h> up to CLONE_ARGS_SIZE_VER2 (Linux 5.7: the
// `cgroup` field), spelled out so the build does not depend on the kernel headers' age.
struct Args {
  std::uint64_t flags = 0;
  std::uint64_t pidfd = 0;        // with CLONE_PIDFD: address of an int the pidfd is stored in
  std::uint64_t child_tid = 0;
  std::uint64_t parent_tid = 0;
  std::uint64_t exit_signal = 0;  // SIGCHLD: the child is waited for like a fork()ed one
  std::uint64_t stack = 0;        // lowest address of the child's stack
  std::uint64_t stack_size = 0;   // the child starts with sp = stack + stack_size
  std::uint64_t tls = 0;
  std::uint64_t set_tid = 0;
  std::uint64_t set_tid_size = 0;
  std::uint64_t cgroup = 0;       // with CLONE_INTO_CGROUP: fd of the cgroup v2 directory
};

// Whether this build has the trampoline (x86-64 only; elsewhere call() fails with ENOSYS
// and the caller takes its clone(2) path).
bool available();

// clone3(args): returns the child's pid, or -1 with errno. The child never returns here:
// it calls fn(arg) on args->stack and exits with fn's result, like glibc's clone().
long call(Args* args, int (*fn)(void*), void* arg);

}  // namespace breakout::clone3_vm
