// The host's own non-loopback address on Windows: GetAdaptersAddresses, the POSIX rules for which address counts.
//
// "Loopback only" means 127.0.0.0/8 and ::1, not the address the LAN reaches
// this host by; Windows, like Linux, delivers a connect to any local address internally,
// so a sandbox that filters on "is it loopback?" by interface or route can still let it through.
// Microsoft Learn: "GetAdaptersAddresses function" (call with a 15 KB buffer, retry on
// ERROR_BUFFER_OVERFLOW with the size it returns), "IP_ADAPTER_ADDRESSES_LH structure"
// (OperStatus, IfType IF_TYPE_SOFTWARE_LOOPBACK), "IP_ADAPTER_UNICAST_ADDRESS_LH structure".
#include "harness/host/win/host_address.h"

#include <winsock2.h>
#include <ws2tcpip.h>
#include <iphlpapi.h>
#include <ipifcons.h>  // IF_TYPE_SOFTWARE_LOOPBACK

#include <cstdint>
#include <vector>

#include "harness/platform/win/win_util.h"

namespace breakout::win {

namespace {

// Left out as on POSIX: 127/8, link-local 169.254/16, multicast, and 198.18.0.0/15
// (the harness's own external-host range on Linux; never the LAN address).
bool usable_v4(const sockaddr_in& sa) {
  const std::uint32_t ip = ntohl(sa.sin_addr.s_addr);
  return (ip >> 24) != 127 && (ip >> 16) != 0xa9fe && (ip >> 28) != 0xe && (ip >> 17) != (0xc612u >> 1) && ip != 0;
}

// Left out: ::1, fe80::/10 (scoped, not reachable as a plain address), multicast, v4-mapped, ::.
bool usable_v6(const sockaddr_in6& sa) {
  const in6_addr& ip = sa.sin6_addr;
  return !IN6_IS_ADDR_LOOPBACK(&ip) && !IN6_IS_ADDR_LINKLOCAL(&ip) && !IN6_IS_ADDR_MULTICAST(&ip) &&
         !IN6_IS_ADDR_V4MAPPED(&ip) && !IN6_IS_ADDR_UNSPECIFIED(&ip);
}

}  // namespace

std::optional<std::string> host_address(int family, std::string* why) {
  const ULONG flags = GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST | GAA_FLAG_SKIP_DNS_SERVER;
  ULONG size = 15 * 1024;
  std::vector<unsigned char> buf;
  ULONG rc = ERROR_BUFFER_OVERFLOW;
  // Bounded: the adapter list may grow between two calls; three tries, as Microsoft Learn's example.
  for (int tries = 0; tries < 3 && rc == ERROR_BUFFER_OVERFLOW; ++tries) {
    buf.assign(size, 0);
    rc = ::GetAdaptersAddresses(static_cast<ULONG>(family), flags, nullptr,
                                reinterpret_cast<IP_ADAPTER_ADDRESSES*>(buf.data()), &size);
  }
  if (rc == ERROR_NO_DATA) {
    *why = std::string("this host has no ") + (family == AF_INET ? "IPv4" : "IPv6") + " adapter (GetAdaptersAddresses)";
    return std::nullopt;
  }
  if (rc != NO_ERROR) {
    *why = "[win32] " + last_error_text("GetAdaptersAddresses", rc);
    return std::nullopt;
  }
  for (auto* a = reinterpret_cast<const IP_ADAPTER_ADDRESSES*>(buf.data()); a != nullptr; a = a->Next) {
    if (a->OperStatus != IfOperStatusUp || a->IfType == IF_TYPE_SOFTWARE_LOOPBACK) continue;
    for (const IP_ADAPTER_UNICAST_ADDRESS* u = a->FirstUnicastAddress; u != nullptr; u = u->Next) {
      const sockaddr* sa = u->Address.lpSockaddr;
      if (sa == nullptr || sa->sa_family != family) continue;
      char text[INET6_ADDRSTRLEN] = {};
      if (family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(sa);
        if (!usable_v4(*v4) || ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text) == nullptr) continue;
      } else {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(sa);
        if (!usable_v6(*v6) || ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text) == nullptr) continue;
      }
      return std::string(text);
    }
  }
  *why = std::string("this host has no non-loopback ") + (family == AF_INET ? "IPv4" : "global IPv6") +
         " address on an adapter that is up (GetAdaptersAddresses)";
  return std::nullopt;
}

}  // namespace breakout::win
