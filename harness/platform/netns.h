// The "external" host: a network namespace the harness creates, joined to the host by a veth pair.
//
// Addresses come from 198.18.0.0/15 (RFC 2544 benchmarking range), so nothing
// outside this machine is ever a target: host side 198.18.<k>.1/30, namespace
// side 198.18.<k>.2/30, and 198.19.<k>.2/32 inside too (second_address()). Needs CAP_NET_ADMIN and iproute2; otherwise create()
// returns null with the reason. The destructor deletes the namespace and the
// veth pair (also run from the SIGINT path through the normal unwinding).
#pragma once

#include <memory>
#include <string>

namespace breakout {

class ExternalHost {
 public:
  // nullptr + *why_not filled when the namespace cannot be made here.
  static std::unique_ptr<ExternalHost> create(const std::string& run_nonce, std::string* why_not);
  ~ExternalHost();
  ExternalHost(const ExternalHost&) = delete;
  ExternalHost& operator=(const ExternalHost&) = delete;

  const std::string& address() const { return ns_addr_; }  // e.g. "198.18.7.2"
  // A second address of the same namespace, 198.19.<k>.2/32 on its loopback, routed from the host
  // through the veth: a destination told apart from address() by address, not port (names that
  // resolve to a denied host, host/name_server.h).
  const std::string& second_address() const { return ns_addr2_; }  // e.g. "198.19.7.2"
  const std::string& name() const { return ns_name_; }     // e.g. "breakout-1a2b3c"
  // Creates a socket(domain, type, 0) inside the namespace (setns in a helper
  // thread; the socket keeps the namespace). Returns the fd or -1.
  int socket_in_namespace(int domain, int type) const;

 private:
  ExternalHost() = default;
  std::string ns_name_, veth_host_, ns_addr_, ns_addr2_, host_addr_;
};

}  // namespace breakout
