// The host's own non-loopback address on Windows (net:tcp4-host, tcp6-host), from GetAdaptersAddresses.
#pragma once

#include <optional>
#include <string>

namespace breakout::win {

// The first unicast address of `family` (AF_INET or AF_INET6) on an adapter that is up
// and not the software loopback, as numeric text; nullopt with *why when there is none.
// Same exclusions as the POSIX host_address() (host/posix/net_listeners.cc).
std::optional<std::string> host_address(int family, std::string* why);

}  // namespace breakout::win
