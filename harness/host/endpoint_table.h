// The named endpoints of one NonceListeners set, portable: the spec each gives a probe, or why it was skipped.
//
// Both platform engines (host/posix/net_listeners.cc, host/win/net_listeners.cc) bind
// their own sockets; what they bind, how an endpoint is named and spelled, and what a
// skipped one answers is decided here once, so the two cannot drift.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "harness/host/net_listeners.h"
#include "harness/host/nonce_book.h"

namespace breakout {

enum class IpFamily { v4, v6 };

class EndpointTable {
 public:
  // A socket bound to addr:port: spec "tcp:127.0.0.1:40123" or "udp:[::1]:40124".
  void bound(const std::string& name, bool stream, IpFamily family, const std::string& addr, int port, bool loopback);
  void skip(const std::string& name, std::string why);
  // tcp4-external, udp4-external, proxy-allowed and proxy-denied, when there is no ExternalHost
  // ("" reads "not requested").
  void skip_external(const std::string& unavailable_reason);

  std::optional<Endpoint> find(const std::string& name) const;
  // "" for an endpoint that exists.
  std::string skip_reason(const std::string& name) const;

 private:
  std::map<std::string, Endpoint> endpoints_;
  std::map<std::string, std::string> skipped_;
};

// The endpoints every platform opens: TCP and UDP on 127.0.0.1 and ::1 (no IPv6: skipped
// with the reason), and TCP on the host's own non-loopback address of each family, bound to
// that address only. `binder.add(table, name, family, stream, addr, loopback)` binds,
// registers and records a socket (or its skip); `host_address(family, &why)` finds the
// host's address.
template <class Binder, class HostAddress>
void open_local_endpoints(EndpointTable& table, Binder& binder, HostAddress host_address) {
  binder.add(table, "tcp4-loopback", IpFamily::v4, true, "127.0.0.1", true);
  binder.add(table, "udp4-loopback", IpFamily::v4, false, "127.0.0.1", true);
  binder.add(table, "tcp6-loopback", IpFamily::v6, true, "::1", true);
  binder.add(table, "udp6-loopback", IpFamily::v6, false, "::1", true);
  for (const auto& [name, family] : {std::pair{"tcp4-host", IpFamily::v4}, std::pair{"tcp6-host", IpFamily::v6}}) {
    std::string why;
    if (auto addr = host_address(family, &why)) binder.add(table, name, family, true, *addr, false);
    else table.skip(name, why);
  }
}

// What a NonceListeners keeps apart from the platform's sockets and thread; its accessors
// read only this (host/net_listeners.cc), the platform engine records into `book`.
struct NonceListeners::Shared {
  EndpointTable table;
  NonceBook book;
};

}  // namespace breakout
