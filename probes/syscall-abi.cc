// breakout-probe-syscall-abi: create a file through the i386 (int 0x80) or x32 syscall ABI of a 64-bit process (class syscall-abi-write).
//
// A seccomp filter that compares syscall numbers without checking
// seccomp_data.arch first judges an i386 or x32 call by the x86-64 table:
// i386 open is 5 (x86-64 fstat), x32 open is 2 | __X32_SYSCALL_BIT, a number an
// x86-64-only deny list never names. seccomp(2): "the architecture must be
// checked"; CVE-2009-0835 (the same confusion in the kernel's own seccomp
// mode 1); Docker's and Chromium's filters check arch and, for x86-64, reject
// the x32 bit. Mount-based sandboxes (bwrap, firejail) still apply: the ABI
// changes the number, not the path walk.
//
//   --abi i386|x32 --path P
//       open(P, O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644), write(2) a line and
//       close(2), all three through that ABI: i386 with `int $0x80` (open 5,
//       write 4, close 6; every pointer below 4 GiB: MAP_32BIT), x32 with
//       `syscall` and rax | 0x40000000 (open 2, write 1, close 3).
//
// Availability first, in a forked child (getpid through the ABI): without ia32
// emulation (CONFIG_IA32_EMULATION=n, ia32_emulation=0, or a paravirtualised guest
// without the 32-bit entry, seen on a kernel with CONFIG_IA32_EMULATION=y) int 0x80 kills with
// SIGSEGV; without x32 (CONFIG_X86_X32_ABI=n) the call returns ENOSYS. The report
// says abi_state "available", "unavailable" (with the kernel's reason) or
// "blocked" (SIGSYS: a seccomp filter that checks the architecture). The harness
// judges from outside (snapshot diff) and calls it N/A only when nothing changed
// and its own host-side check agrees. Non-x86-64: unavailable. Exit 0 ok, 1
// failed or unavailable, 64 usage.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "probes/common/args.h"
#include "shared/foreign_abi.h"
#include "probes/common/report.h"

namespace {

constexpr const char* kUsage = "usage: breakout-probe-syscall-abi --abi i386|x32 --path P [--witness PATH]\n";

using breakout::abi::SyscallAbi;

struct Availability {
  const char* state = "unavailable";  // available | unavailable | blocked
  std::string reason;
};

// getpid through the ABI in a forked child (shared/foreign_abi.h): a SIGSEGV or
// ENOSYS there costs only the child; SIGSYS or another errno means a filter answered.
Availability check_abi(SyscallAbi abi) {
  Availability a;
#if !defined(__x86_64__)
  (void)abi;
  a.reason = "the i386 and x32 syscall ABIs exist only on x86-64";
  return a;
#else
  const breakout::abi::GetpidOutcome got = breakout::abi::foreign_getpid(abi);
  const char* name = abi == SyscallAbi::kI386 ? "int $0x80 (i386 ABI)" : "the x32 ABI (nr | __X32_SYSCALL_BIT)";
  if (got.setup_errno != 0) {
    a.state = "error";
    a.reason = std::string("pipe2/fork: ") + std::strerror(got.setup_errno);
  } else if (got.signal == SIGSYS) {
    a.state = "blocked";
    a.reason = std::string(name) + " raised SIGSYS: a seccomp filter refuses this ABI";
  } else if (got.signal == SIGSEGV && abi == SyscallAbi::kI386) {
    a.reason = "int $0x80 raised SIGSEGV: this kernel runs no ia32 emulation here (CONFIG_IA32_EMULATION=n, ia32_emulation=0, or a guest without the 32-bit entry)";
  } else if (got.signal != 0) {
    a.state = "error";
    a.reason = std::string(name) + ": the checking child died of signal " + std::to_string(got.signal);
  } else if (!got.reported) {
    a.state = "error";
    a.reason = std::string(name) + ": the checking child reported nothing";
  } else if (got.answered()) {
    a.state = "available";
    a.reason = std::string(name) + ": getpid answered";
  } else if (got.ret == -ENOSYS) {
    a.reason = abi == SyscallAbi::kX32 ? "x32 syscalls return ENOSYS: this kernel has no x32 ABI (CONFIG_X86_X32_ABI=n)"
                                       : "int $0x80 getpid returned ENOSYS";
  } else {
    a.state = "blocked";  // EPERM & co: a filter answered instead of the kernel's table
    a.reason = std::string(name) + " getpid returned " + breakout::probe::errno_name(static_cast<int>(-got.ret));
  }
  return a;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  using namespace breakout::probe;
  Args args(argc, argv, kUsage, {{"abi", Args::kValue}, {"path", Args::kValue}, {"witness", Args::kValue}});
  ::alarm(15);  // hard bound over everything
  const std::string abi_name = args.require("abi");
  if (abi_name != "i386" && abi_name != "x32") args.usage_error("--abi must be i386 or x32");
  const SyscallAbi abi = abi_name == "i386" ? SyscallAbi::kI386 : SyscallAbi::kX32;
  const std::string path = args.require("path");
  ProbeReport rep("syscall-abi");
  if (auto w = args.get("witness")) rep.witness_to(*w);  // the in-run control where the ABI is refused (witness.h)
  rep.set("abi", abi_name);
  rep.set("path", path);
  const Availability av = check_abi(abi);
  rep.set("abi_state", av.state);
  rep.set("abi_reason", av.reason);
  if (std::strcmp(av.state, "available") != 0) {
    rep.fail("abi check", ENOSYS);
    rep.set_detail(av.reason);
    rep.emit();
    return rep.exit_code();
  }
#if defined(__x86_64__)
  // Every pointer the call sees below 4 GiB: the i386 entry takes 32-bit registers.
  static const char kLine[] = "written through a foreign syscall ABI\n";
  constexpr std::size_t kPage = 4096;
  if (path.size() + sizeof kLine + 2 > kPage) args.usage_error("--path longer than a page");
  void* low = ::mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (low == MAP_FAILED) {
    rep.fail("mmap MAP_32BIT", errno);
    rep.emit();
    return rep.exit_code();
  }
  char* p = static_cast<char*>(low);
  std::memcpy(p, path.c_str(), path.size() + 1);
  char* line = p + path.size() + 1;
  std::memcpy(line, kLine, sizeof kLine);
  const breakout::abi::SyscallNumbers& n = breakout::abi::numbers(abi);
  const long addr = static_cast<long>(reinterpret_cast<std::uintptr_t>(p));
  const long fd = breakout::abi::abi_call(abi, n.open, addr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    rep.fail("open", static_cast<int>(-fd));
  } else {
    const long w = breakout::abi::abi_call(abi, n.write, fd, static_cast<long>(reinterpret_cast<std::uintptr_t>(line)),
                            static_cast<long>(sizeof kLine - 1));
    rep.set("written", w);
    breakout::abi::abi_call(abi, n.close, fd);
    rep.succeed();
  }
  ::munmap(low, kPage);
#endif
  rep.emit();
  return rep.exit_code();
}
