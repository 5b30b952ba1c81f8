// Host objects (targets "ipc:<name>"): processes, IPC objects, keys and ptys the harness owns outside the sandbox.
//
// Each host-object class (process, IPC, key, tty) aims at a host object and at an "own-"
// twin the probe creates inside the sandbox itself (the control). A host
// object is denied under every policy: no policy field grants a sandbox
// another process's memory, signals, IPC namespace, keyring or terminal.
// Names, the class each belongs to, and the rule: docs/host-ipc.md.
#pragma once

#include <string>

#include "harness/model/expectation.h"
#include "harness/model/scenario.h"

namespace breakout {

// What a host object is, whatever class aims at it: the host layer makes and checks an object by
// its kind (host/*/host_objects.cc), never by its class.
enum class HostObjectKind {
  kProcess,         // a victim process (process-reach)
  kIpc,             // SysV shm / msg queue, POSIX shm
  kSharedFile,      // a file where every user may write (/tmp, /var/tmp, C:\Users\Public, ...), workspace-file
  kKey,             // a key in a keyring
  kPty,             // a pseudo-terminal
  kResolver,        // a DNS resolver
  kRegistryKey,     // a watched registry key (registry-write)
  kNamedObject,     // a Win32 named pipe or event
  kDesktop,         // a window of the user's desktop, the clipboard
  kRegistrySecret,  // a registry key holding a canary (registry-read)
  kRawDevice,       // a raw disk
  kNetFamily,       // an ICMP reader, a host link, a vsock listener
};

struct HostObjectInfo {
  const char* name;     // "victim", "own-victim", "sysv-shm", ...
  AttemptClass klass;   // the one class that may aim at it
  HostObjectKind kind;  // what it is: how the host makes it and asks whether it can exist
  bool host;            // true: owned by the harness outside (denied); false: the probe's own (allowed)
};

// nullptr for an unknown name.
const HostObjectInfo* host_object_info(const std::string& name);

// Whether the object lives in the external host's namespace (platform/netns.h): without that
// namespace in this run its executions are skipped with the namespace's reason (run/plan.cc).
bool host_object_on_external_host(const std::string& name);

// Host objects ("ipc:<name>", classes/host_object/spec_objects.h): the harness's own are denied
// under every policy, the probe's own ("own-…", "workspace-file") allowed; the
// loopback resolver (dns-loopback) follows the network mode.
// Throws Error("bad-target", "...") when the object does not belong to `klass`.
Expectation expect_host_object(AttemptClass klass, const Target& target, const Policy& policy);

// Whether this host can hold an object or run a class's mechanism is the host's answer:
// host/availability.h.

}  // namespace breakout
