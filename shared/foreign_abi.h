// Syscalls through the i386 (int $0x80) and x32 ABIs of an x86-64 process, and the
// "does this ABI answer here?" check, shared by the syscall-abi probe (inside the
// sandbox) and the harness (asking the host the same question before it plans).
//
// Why both sides need it: a seccomp filter that judges by the x86-64 syscall table
// alone misreads i386 open (5 = x86-64 fstat) and x32 calls (nr | __X32_SYSCALL_BIT);
// see seccomp(2) "seccomp_data.arch" and scenarios/attempts/syscall_abi.toml. The
// answer depends on the kernel (CONFIG_IA32_EMULATION, ia32_emulation=, CONFIG_X86_X32_ABI),
// so the check runs getpid through the ABI in a forked child, where a SIGSEGV
// (no ia32 emulation) or SIGSYS (a filter) costs only that child.
//
// POSIX, header-only; everything after fork() is async-signal-safe (the harness has threads).
#pragma once

#include <cerrno>
#include <csignal>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

namespace breakout::abi {

enum class SyscallAbi { kI386, kX32 };

// Syscall numbers of the operations, per ABI (arch/x86/entry/syscalls/syscall_32.tbl,
// syscall_64.tbl "common" entries with __X32_SYSCALL_BIT).
struct SyscallNumbers {
  long open, write, close, getpid;
};
inline constexpr SyscallNumbers kI386Numbers = {5, 4, 6, 20};
inline constexpr long kX32Bit = 0x40000000;  // __X32_SYSCALL_BIT
inline constexpr SyscallNumbers kX32Numbers = {2 | kX32Bit, 1 | kX32Bit, 3 | kX32Bit, 39 | kX32Bit};

inline const SyscallNumbers& numbers(SyscallAbi abi) { return abi == SyscallAbi::kI386 ? kI386Numbers : kX32Numbers; }

// One call through the ABI: the kernel's return value (-errno on failure). -ENOSYS off x86-64.
inline long abi_call(SyscallAbi abi, long nr, long a1 = 0, long a2 = 0, long a3 = 0) {
#if defined(__x86_64__)
  long ret = nr;
  if (abi == SyscallAbi::kI386) {
    // int $0x80 from 64-bit code: the compat entry takes ebx, ecx, edx (32 bits);
    // r8-r11 are preserved since Linux 4.15, but a clobber costs nothing.
    asm volatile("int $0x80" : "+a"(ret) : "b"(a1), "c"(a2), "d"(a3) : "memory", "cc", "r8", "r9", "r10", "r11");
    return static_cast<int>(ret);  // a 32-bit result: -errno lives in eax
  }
  asm volatile("syscall" : "+a"(ret) : "D"(a1), "S"(a2), "d"(a3) : "memory", "cc", "rcx", "r11");
  return ret;
#else
  (void)abi, (void)nr, (void)a1, (void)a2, (void)a3;
  return -ENOSYS;
#endif
}

// What getpid through the ABI did in a forked child.
struct GetpidOutcome {
  int setup_errno = 0;   // pipe2/fork failed (errno); nothing else is set
  int signal = 0;        // the child died of this signal (SIGSEGV: no ia32 emulation; SIGSYS: seccomp)
  bool reported = false; // the child wrote its answer
  long ret = 0;          // the call's return value (-errno on failure)
  long pid = 0;          // the child's real pid: ret == pid means the ABI answered
  bool answered() const { return signal == 0 && reported && ret == pid; }
};

inline GetpidOutcome foreign_getpid(SyscallAbi abi) {
  GetpidOutcome out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.setup_errno = errno;
    return out;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    out.setup_errno = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (child == 0) {
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);  // an expected SIGSEGV leaves no core file
    ::alarm(5);
    const long sent[2] = {abi_call(abi, numbers(abi).getpid), static_cast<long>(::getpid())};
    ssize_t w;
    do w = ::write(fds[1], sent, sizeof sent);
    while (w < 0 && errno == EINTR);
    ::_exit(0);
  }
  ::close(fds[1]);
  long got[2] = {0, 0};
  ssize_t r;
  do r = ::read(fds[0], got, sizeof got);
  while (r < 0 && errno == EINTR);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  out.reported = r == static_cast<ssize_t>(sizeof got);
  out.ret = got[0];
  out.pid = got[1];
  return out;
}

}  // namespace breakout::abi
