// Host sensor for the network: listeners the harness owns, counting nonces received.
//
// A connect "happened" only when one of our listeners accepted it and read the
// attempt's nonce (Landlock's net selftests judge the same way). Listeners:
// TCP and UDP on 127.0.0.1 and ::1, and, when an ExternalHost exists, TCP and
// UDP on its 198.18.0.0/15 address inside the harness's own network namespace,
// and TCP on the host's own non-loopback IPv4/IPv6 address (tcp4-host, tcp6-host:
// not "loopback" for a loopback-only policy; skipped when the host has none).
// Every read is bounded (4 KiB per connection, 64 connections in flight,
// 100000 nonces remembered); peers are hostile.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace breakout {

class ExternalHost;  // platform/netns.h

// Endpoint names used by scenarios (target "net:<name>").
//   tcp4-loopback udp4-loopback tcp6-loopback udp6-loopback
//   tcp4-external udp4-external
//   proxy-allowed proxy-denied (TCP on the external host: network = "proxy"'s destinations)
//   name-denied (TCP on the external host's second address: where denied names resolve)
//   tcp4-host tcp6-host (the host's own LAN address, e.g. eth0's 192.0.2.2)
struct Endpoint {
  std::string name;     // as above
  std::string spec;     // what the probe gets: "tcp:127.0.0.1:40123", "udp:[::1]:40124"
  bool loopback = true; // false for *-external and *-host
};

class NonceListeners {
 public:
  // Starts loopback listeners; `external` may be null (then *-external endpoints
  // are unavailable and skip_reason() says why).
  NonceListeners(ExternalHost* external, std::string external_unavailable_reason);
  ~NonceListeners();  // stops threads, closes sockets
  NonceListeners(const NonceListeners&) = delete;
  NonceListeners& operator=(const NonceListeners&) = delete;

  // nullopt when the endpoint could not be created; then skip_reason(name) is set.
  std::optional<Endpoint> endpoint(const std::string& name) const;
  std::string skip_reason(const std::string& name) const;

  // Which endpoints received `nonce` so far.
  std::set<std::string> received(const std::string& nonce) const;
  // Waits until `nonce` arrived at `endpoint_name` or `max_wait` passed.
  bool wait_for(const std::string& nonce, const std::string& endpoint_name,
                std::chrono::milliseconds max_wait) const;

 private:
  struct Shared;                // endpoint table and nonce book, portable (host/endpoint_table.h)
  struct Impl;                  // the platform's sockets and reader thread (host/posix, host/win)
  std::unique_ptr<Shared> shared_;
  std::unique_ptr<Impl> impl_;  // after shared_, so destroyed first: its thread records into shared_->book
};

// A unix-socket listener at a path (used per attempt inside the workspace: the
// "allowed" network control under policy none, since a path socket is a file
// system object shared through the workspace bind, not a network-namespace one),
// and for the host-side stand-ins net:unix-outside (a path in the tree's parent)
// and net:abstract ("@breakout-<nonce>": an abstract address in the harness's
// own, i.e. the host's, network namespace; unix(7)).
class UnixNonceListener {
 public:
  explicit UnixNonceListener(std::string path);
  // Why this platform has no unix-socket listener (the planner skips such targets), or nullopt.
  static std::optional<std::string> unavailable_reason();
  ~UnixNonceListener();  // closes and unlinks
  UnixNonceListener(const UnixNonceListener&) = delete;
  UnixNonceListener& operator=(const UnixNonceListener&) = delete;
  std::string spec() const { return "unix:" + path_; }
  bool wait_for(const std::string& nonce, std::chrono::milliseconds max_wait) const;

 private:
  struct Impl;
  std::string path_;
  std::unique_ptr<Impl> impl_;
};

// The line a probe sends: "BREAKOUT-NONCE <nonce>\n" (anywhere in the first 4 KiB).
inline constexpr const char* kNonceMarker = "BREAKOUT-NONCE ";

}  // namespace breakout
