// Kernel mechanisms a sandbox may refuse outright, whatever the policy says, and the targets
// that need them. A profile ([refuses] in spawners/*.toml, docs/spawners.md) or a driver (hello
// `refuses`, docs/drivers.md) declares such a refusal (declared_refusal.h); the planner then reads a failed control on such a target as a declared
// limitation, and the denials it pairs with are judged with an in-run witness instead
// (attempt/witness.h): the probe left a marker in the workspace after its attempt.
//
//   for (Mechanism m : mechanisms_needed(attempt.needs, &target)) if (spawner.refuses(m, policy)) ...
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/model/target.h"

namespace breakout {

enum class Mechanism {
  // Unix-domain sockets: connect(2)/sendto(2) on AF_UNIX, path or abstract. srt's seccomp filter
  // fails socket(AF_UNIX); Codex's network filter fails connect(2) for every family.
  kAfUnix,
  // io_uring_setup(2): srt's seccomp filter refuses it (IORING_OP_SOCKET would bypass its
  // socket() rule), so does Codex's.
  kIoUring,
  // ptrace(2) and process_vm_readv(2) on the sandbox's own processes (Codex's filter refuses
  // both under network off).
  kPtrace,
  // /proc/<pid> naming the command's own processes: srt runs the command in a pid namespace of
  // its own under a /proc mounted for the outer one, so /proc/<child pid> is another process.
  kProcfs,
  // The i386 syscall entry (int 0x80) of a 64-bit process: a seccomp filter that checks
  // seccomp_data.arch, as it must (seccomp(2)), kills it with SIGSYS (srt's and Codex's do), so the
  // workspace write through it, the control of abi.i386-open-write, cannot happen there.
  kI386Abi,
  // An ICMP echo request from inside: a ping socket (SOCK_DGRAM, IPPROTO_ICMP; allowed only to the
  // groups in net.ipv4.ping_group_range) or a raw socket (CAP_NET_RAW in the network namespace's
  // owning user namespace). A tool that runs the command unprivileged in a user namespace of its
  // own offers neither (Codex, srt), so the own-loopback control cannot happen there.
  kIcmp,
  // NETLINK_ROUTE requests (rtnetlink(7)), the dump getifaddrs(3) makes included: Codex's seccomp
  // filter refuses socket(AF_NETLINK) under network off.
  kNetlink,
  // A named pipe or device/socket node made by mkfifo(3)/mknod(2) showing on the host's file
  // system. gVisor keeps them in its own kernel: the host never sees one, in the workspace either
  // (gvisor.dev/docs/architecture_guide/: the Gofer/host file system holds regular files and
  // directories), so the workspace control of fs.write.mkfifo/mknod cannot happen there.
  kMknod,
  // renameat2(2) RENAME_EXCHANGE: gVisor does not implement it (EINVAL), so the workspace control
  // of fs.race.exchange-dir cannot happen there.
  kRenameExchange,
  // The command's processes visible in the host's /proc: a sandbox that runs them in a kernel of
  // its own (gVisor's Sentry) shows the host only itself, so recon never sees the probe alive.
  kHostProc,
  // User extended attributes (xattr(7), the user.* namespace) set from inside on a host file:
  // gVisor 20221219's gofer answers setxattr(2) on a bind-mounted host file with ENOTSUP, in the
  // workspace too, so the workspace control of fs.meta.setxattr cannot happen there.
  kXattr,
  // process_vm_readv(2) (and _writev) on the sandbox's own processes, where ptrace(2) itself works:
  // gVisor 20221219 does not implement the syscall (ENOSYS), so the own-victim control of
  // proc.vm-read cannot happen there. (A filter that refuses ptrace(2) refuses both: kPtrace.)
  kProcessVm,
  // add_key(2) of a "user" key into the command's own keyrings (keyrings(7)): gVisor 20221219
  // answers EACCES, so the own-key control of key.user-keyring cannot happen there.
  kKeyring,
  // ioctl(2) TIOCSTI on a terminal the command owns (ioctl_tty(2)): gVisor 20221219 answers
  // ENOTTY on its own pty, so the own-pty control of tty.tiocsti* cannot happen there. (A Linux
  // 6.2+ host with dev.tty.legacy_tiocsti = 0 refuses it to the unprivileged alike.)
  kTiocsti,
};

const char* to_string(Mechanism m);                        // "af_unix", as profiles write it
std::optional<Mechanism> mechanism_from(const std::string& s);
std::string mechanism_names();                             // "af_unix, io_uring, ...", for schema errors

// The mechanism reaching `target` needs, if it is one a sandbox may refuse (nullopt: none).
std::optional<Mechanism> mechanism_of(const Target& target);

// What one execution needs: the attempt's own `needs` (scenario files: the io_uring attempts,
// ptrace and process_vm_readv) and its target's.
std::vector<Mechanism> mechanisms_needed(const std::vector<Mechanism>& attempt_needs, const Target* target);

}  // namespace breakout
