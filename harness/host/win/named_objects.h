// Named-object host objects (class named-object-reach): a named pipe server and a named event the harness owns.
//
//   "pipe"   \\.\pipe\breakout-<tag>: one inbound instance, overlapped; inspect() reads at most
//            4 KiB within 1 s; the nonce received decides (a client connecting is evidence).
//   "event"  Local\breakout-<tag>: manual-reset, created unsignalled; signalled afterwards decides.
// The probe gets the name as {target} ("pipe:<name>", "event:<name>"). Windows only.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "harness/host/host_objects.h"

namespace breakout {

// Bounds of the pipe server against a hostile client (sizes and waits).
inline constexpr std::size_t kPipeReadLimit = 4096;
inline constexpr std::chrono::milliseconds kPipeReadWait{1000};

std::unique_ptr<HostObject> make_named_object(const std::string& name, const HostObjectSetup& setup);

}  // namespace breakout
