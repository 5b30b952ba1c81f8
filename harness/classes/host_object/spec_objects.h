// Host objects (targets "ipc:<name>"): processes, IPC objects, keys and ptys the harness owns outside the sandbox.
//
// Each host-object class (process, IPC, key, tty) aims at a host object and at an "own-"
// twin the probe creates inside the sandbox itself (the control). A host
// object is denied under every policy: no policy field grants a sandbox
// another process's memory, signals, IPC namespace, keyring or terminal.
// Names, the class each belongs to, and the rule: docs/host-ipc.md.
#pragma once

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

// Whether this host can hold an object or run a class's mechanism is the host's answer:
// host/availability.h.

}  // namespace breakout
