// Raw clone3(2) with a child trampoline, after glibc's internal __clone3 (sysdeps/unix/sysv/linux/x86_64/clone3.S).
//
// Why assembly: glibc 2.36 exports no clone3 wrapper, and syscall(SYS_clone3, ...)
// cannot be used with CLONE_VM: the child would return from syscall() on the stack
// given in clone_args (or, without one, into the suspended parent's frames and
// overwrite them). The child must start a function on its new stack before any
// C++ code runs, which only a few instructions after the `syscall` can do.
//
// x86-64 System V: call(args=rdi, size=rsi, fn=rdx, arg=rcx). `syscall` clobbers rcx
// and r11 only (Intel SDM, SYSCALL), so arg is moved to r8 first; rdx survives. clone3
// reads rdi/rsi (kernel/fork.c, SYSCALL_DEFINE2(clone3, ...)). In the child rax is 0
// and rsp is args->stack + args->stack_size (arch/x86/kernel/process.c, copy_thread).
#include "harness/platform/posix/clone3_vm.h"

#include <sys/syscall.h>

#include <cerrno>

namespace breakout::clone3_vm {

#if defined(__x86_64__)

#if defined(SYS_clone3)
static_assert(SYS_clone3 == 435, "x86-64 clone3 is syscall 435 (arch/x86/entry/syscalls/syscall_64.tbl)");
#endif
static_assert(SYS_exit == 60, "x86-64 exit is syscall 60");

// Returns the raw kernel result: the child's pid, or -errno.
extern "C" long breakout_clone3_raw(Args* args, unsigned long size, int (*fn)(void*), void* arg);

asm(R"(
  .text
  .p2align 4
  .globl breakout_clone3_raw
  .hidden breakout_clone3_raw
  .type breakout_clone3_raw, @function
breakout_clone3_raw:
  .cfi_startproc
  mov %rcx, %r8
  mov $435, %eax
  .cfi_endproc
  syscall
  test %rax, %rax
  jz 1f
  ret
1:
  .cfi_startproc
  .cfi_undefined rip
  xor %ebp, %ebp
  and $-16, %rsp
  mov %r8, %rdi
  call *%rdx
  mov %rax, %rdi
  mov $60, %eax
  syscall
  hlt
  .cfi_endproc
  .size breakout_clone3_raw, .-breakout_clone3_raw
)");

bool available() { return true; }

long call(Args* args, int (*fn)(void*), void* arg) {
  const long r = breakout_clone3_raw(args, sizeof(Args), fn, arg);
  if (r < 0 && r > -4096) {
    errno = static_cast<int>(-r);
    return -1;
  }
  return r;
}

#else  // no trampoline for this architecture: the caller's clone(2) path runs

bool available() { return false; }

long call(Args*, int (*)(void*), void*) {
  errno = ENOSYS;
  return -1;
}

#endif

}  // namespace breakout::clone3_vm
