// A recording DNS resolver the harness owns for one attempt (class dns-query).
#pragma once

#include <memory>

#include "harness/host/host_objects.h"

namespace breakout {

// loopback: UDP on 127.0.0.1 (an ephemeral port) in the harness's, i.e. the host's,
// network namespace; otherwise a unix datagram socket in the workspace. It answers
// every A query for *.breakout.test with 127.0.0.1 and records each name it saw.
std::unique_ptr<HostObject> make_dns_resolver(bool loopback, const HostObjectSetup& setup);

}  // namespace breakout
