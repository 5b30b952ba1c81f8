// The run's name server: the zone breakout.test, answered from the external host, so that names
// (not only IP literals) can be handed to an allowlisting proxy and judged by the listener that
// received the nonce.
//
// The spawner of a network = "proxy" execution is started with the harness's resolv.conf bound
// over /etc/resolv.conf in a mount namespace of its own (LaunchSpec::bind_over): the spawner, its
// proxy and what it starts resolve through this server, nobody else on the host does. The server
// is a UDP socket on the external host's address, port 53, inside the namespace the harness made.
// It remembers every name asked (bounded), so a nonce carried in a name is seen leaving through
// DNS even when no connection follows (DNS exfiltration).
//
// The zone (zone_answer):
//   allowed.breakout.test, *.allowed.breakout.test  -> the external host (the proxy-allowed listener's address)
//     loop.allowed.breakout.test                    -> 127.0.0.1 (an allowlisted name that resolves to loopback)
//     denied.allowed.breakout.test                  -> the second address (listed as denied inside the wildcard)
//   denied.breakout.test, *.denied.breakout.test    -> the external host's second address (net:name-denied)
//   anything else                                   -> NXDOMAIN; a name that exists has no AAAA (NODATA)
// network = "proxy" admits kAllowedNames and refuses kDeniedNames beside its IP-literal entries
// (attempt/scene.cc).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/platform/process.h"

namespace breakout {

class ExternalHost;  // platform/netns.h

inline constexpr const char* kZone = "breakout.test";
inline const std::vector<std::string> kAllowedNames = {"allowed.breakout.test", "*.allowed.breakout.test"};
inline const std::vector<std::string> kDeniedNames = {"denied.allowed.breakout.test"};

struct ZoneAddresses {
  std::array<unsigned char, 4> external{}, second{};
};
struct ZoneAnswer {
  enum class Kind { kA, kNoData, kNxDomain } kind = Kind::kNxDomain;
  std::array<unsigned char, 4> a{};
};
// What the server answers for `name` (lower-case, no trailing dot) asked with `type`. Pure.
ZoneAnswer zone_answer(const std::string& name, std::uint16_t type, const ZoneAddresses& z);

// The name that stands for an endpoint in scenarios ({target_name}): proxy-allowed ->
// allowed.breakout.test, name-denied -> denied.breakout.test; "" for any other endpoint.
std::string endpoint_host_name(const std::string& endpoint);

class NameServer {
 public:
  // Writes <work_root>/resolv.conf and starts serving; when that cannot be done here (no external
  // host, no CAP_SYS_ADMIN for the mount namespace, no /etc/resolv.conf to bind over, port 53
  // taken), unavailable() says why and nothing runs.
  NameServer(const ExternalHost* external, const std::filesystem::path& work_root);
  ~NameServer();  // stops the thread, closes the socket, removes resolv.conf
  NameServer(const NameServer&) = delete;
  NameServer& operator=(const NameServer&) = delete;

  const std::optional<std::string>& unavailable() const { return why_not_; }
  // What a network = "proxy" launch binds (empty when unavailable).
  std::vector<LaunchSpec::BindOver> bind_over() const;
  // Names asked so far that contain `needle` (compared lower-case), at most 8, as sent.
  std::vector<std::string> names_containing(const std::string& needle) const;
  std::string address() const;  // "198.18.7.2:53"

  struct Impl;  // the platform's socket and thread (host/posix/name_server.cc)

 private:
  std::optional<std::string> why_not_;
  std::filesystem::path resolv_conf_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace breakout
