// What this host can hold, asked before an attempt is planned: a host object, a class's kernel
// mechanism, a foreign syscall ABI. An answer with a reason makes the executions a skip that
// says why, never a pass. The host's own answer, so it lives with the sensors: platform code in
// host/posix/host_objects.cc and host/win/host_objects.cc.
#pragma once

#include <optional>
#include <string>

#include "harness/model/class_spec.h"

namespace breakout {

// Whether the host object named `name` can exist on this machine; the reason
// (the kernel's, e.g. "dev.tty.legacy_tiocsti = 0") when it cannot. Decided at
// plan time, so an unavailable object is a skip, never a pass.
std::optional<std::string> host_object_unavailable(const std::string& name);

// The same for a whole class, read from its table entry, never from the class itself: outside its
// platforms (ClassSpec::platforms) its `platform_why`; on them what its requirement says
// (availability.cc).
std::optional<std::string> class_unavailable(AttemptClass klass);

// Whether this host's kernel offers mechanism `r` (Requirement::kIoUring: io_uring_setup(2) fails
// with ENOSYS, or kernel.io_uring_disabled forbids it); the kernel's reason when it does not.
// Platform code: host/posix/host_objects.cc, host/win/host_objects.cc.
std::optional<std::string> requirement_unavailable(Requirement r);

// Whether this host's kernel runs syscalls of the foreign x86 ABI `abi` ("i386":
// int 0x80, ia32 emulation; "x32": nr | __X32_SYSCALL_BIT) for a 64-bit process;
// the kernel's reason when it does not. Checked once per ABI in a forked child
// of the harness (outside every sandbox): getpid through the ABI. Class
// syscall-abi-write is N/A only when this, the probe's own check and the
// snapshot (nothing changed) all agree (attempt/observe.cc).
std::optional<std::string> syscall_abi_unavailable(const std::string& abi);

}  // namespace breakout
