// The net-inbound oracle's own connect: from the host into a listener a probe says it opened.
//
//   DialResult d = dial_in("tcp:127.0.0.1:40123", 2s);   // loopback only; "unix:/path" too
//   d.connected, d.received (at most kDialReadCap bytes), d.error ("" when connected)
//
// The address comes from inside the sandbox, so it is held to what the harness would reach
// anyway: a TCP address must be 127.0.0.1 or ::1 (the host's loopback; the harness never
// connects elsewhere), a unix path is the caller's to check. Nothing is sent: the probe speaks
// first, and a host service that happens to own the port learns nothing.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace breakout {

inline constexpr std::size_t kDialReadCap = 4096;

struct DialResult {
  bool connected = false;
  std::string error;     // why not, or what failed after the connect ("" when all went well)
  std::string received;  // the peer's bytes until EOF, the cap or the budget
};

// Connects within `budget` and reads for what is left of it. Never throws for the peer's doing;
// an address that is malformed or not loopback comes back as an error without a connect.
DialResult dial_in(const std::string& address, std::chrono::milliseconds budget);

}  // namespace breakout
