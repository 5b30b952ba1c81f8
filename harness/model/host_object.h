// Host objects (targets "ipc:<name>"): processes, IPC objects, keys and ptys the harness owns outside the sandbox.
//
// Each host-object class (process, IPC, key, tty) aims at a host object and at an "own-"
// twin the probe creates inside the sandbox itself (the control). A host
// object is denied under every policy: no policy field grants a sandbox
// another process's memory, signals, IPC namespace, keyring or terminal.
// Names, the class each belongs to, and the rule: docs/host-ipc.md.
#pragma once

#include <optional>
#include <string>

#include "harness/model/scenario.h"

namespace breakout {

struct HostObjectInfo {
  const char* name;     // "victim", "own-victim", "sysv-shm", ...
  AttemptClass klass;   // the one class that may aim at it
  bool host;            // true: owned by the harness outside (denied); false: the probe's own (allowed)
};

// nullptr for an unknown name.
const HostObjectInfo* host_object_info(const std::string& name);

// Whether the object lives in the external host's namespace (platform/netns.h): without that
// namespace in this run its executions are skipped with the namespace's reason (run/plan.cc).
bool host_object_on_external_host(const std::string& name);

// Whether the host object named `name` can exist on this machine; the reason
// (the kernel's, e.g. "dev.tty.legacy_tiocsti = 0") when it cannot. Decided at
// plan time, so an unavailable object is a skip, never a pass. Platform code
// (host/<platform>/host_objects.cc).
std::optional<std::string> host_object_unavailable(const std::string& name);

// The same for a whole class whose mechanism the kernel may lack (io-uring-write/-connect:
// io_uring_setup(2) fails with ENOSYS, or kernel.io_uring_disabled forbids it).
std::optional<std::string> class_unavailable(AttemptClass klass);

// Whether this host's kernel runs syscalls of the foreign x86 ABI `abi` ("i386":
// int 0x80, ia32 emulation; "x32": nr | __X32_SYSCALL_BIT) for a 64-bit process;
// the kernel's reason when it does not. Checked once per ABI in a forked child
// of the harness (outside every sandbox): getpid through the ABI. Class
// syscall-abi-write is N/A only when this, the probe's own check and the
// snapshot (nothing changed) all agree (attempt/observe.cc).
std::optional<std::string> syscall_abi_unavailable(const std::string& abi);

}  // namespace breakout
