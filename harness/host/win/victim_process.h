// The Windows victim of class process-reach: breakout-probe-victim.exe, started by the harness
// outside every sandbox in a job of its own (killed with it), holding a canary in memory and
// environment (probes/win/victim_body.h).
//
//   "victim"  {target} = "pid:<pid>:tid:<beating thread>:event:<event handle value, hex>"
// What decides (inspect): the victim's event was signalled (a handle duplicated out of it, or a
// thread created in it: it writes "poked" to its status file), its beating thread is suspended
// (the harness's own SuspendThread returns a count above 0; the harness resumes it), it is gone
// (terminated), or its canary shows up in the output (its memory was read). Windows only.
#pragma once

#include <memory>

#include "harness/host/host_objects.h"

namespace breakout {

std::unique_ptr<HostObject> make_victim_process(const HostObjectSetup& setup);

}  // namespace breakout
