// Windows nonce listeners (Winsock): one WSAPoll thread per listener set, every read bounded, peers hostile.
//
// The contract of host/net_listeners.h, as host/posix/net_listeners.cc keeps it:
// TCP and UDP on 127.0.0.1 and ::1, TCP on the host's own non-loopback IPv4/IPv6
// address (tcp4-host, tcp6-host: host/win/host_address.cc; none: skipped with the
// reason), 4 KiB per connection, 64 connections in flight, 2 s per connection, 100000
// nonces remembered. No external host (the harness makes no network namespace on
// Windows) and no unix-socket listener yet: both are skipped with the reason. Microsoft Learn: "WSAPoll function", "WSASocketW function"
// (WSA_FLAG_NO_HANDLE_INHERIT), "ioctlsocket function" (FIONBIO).
#include "harness/host/net_listeners.h"

#include <winsock2.h>
#include <ws2tcpip.h>

#include <algorithm>
#include <atomic>
#include <utility>

#include "harness/core/error.h"
#include "harness/host/endpoint_table.h"
#include "harness/host/nonce_book.h"
#include "harness/host/win/host_address.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxBytesPerConnection = 4096;
constexpr std::size_t kMaxConnections = 64;
constexpr std::size_t kMaxDatagramsPerWakeup = 64;
constexpr auto kConnectionDeadline = std::chrono::seconds(2);
constexpr int kStopPollMs = 50;  // stop() is seen within this (no eventfd: a flag polled between waits)
const char* const kNotOnWindows = ": not implemented on Windows yet (docs/windows.md)";

std::string wsa_error(const std::string& step) { return "[win32] " + win::last_error_text(step, ::WSAGetLastError()); }

// WSAStartup/WSACleanup, reference-counted by Winsock itself.
class WinsockSession {
 public:
  WinsockSession() {
    WSADATA data{};
    if (const int rc = ::WSAStartup(MAKEWORD(2, 2), &data); rc != 0)
      throw Error("win32", win::last_error_text("WSAStartup", static_cast<DWORD>(rc)));
  }
  ~WinsockSession() { ::WSACleanup(); }
  WinsockSession(const WinsockSession&) = delete;
  WinsockSession& operator=(const WinsockSession&) = delete;
};

// RAII for a SOCKET: closed exactly once, movable.
class UniqueSocket {
 public:
  UniqueSocket() = default;
  explicit UniqueSocket(SOCKET s) : s_(s) {}
  ~UniqueSocket() { reset(); }
  UniqueSocket(UniqueSocket&& o) noexcept : s_(std::exchange(o.s_, INVALID_SOCKET)) {}
  UniqueSocket& operator=(UniqueSocket&& o) noexcept {
    if (this != &o) {
      reset();
      s_ = std::exchange(o.s_, INVALID_SOCKET);
    }
    return *this;
  }
  UniqueSocket(const UniqueSocket&) = delete;
  UniqueSocket& operator=(const UniqueSocket&) = delete;
  SOCKET get() const { return s_; }
  explicit operator bool() const { return s_ != INVALID_SOCKET; }
  void reset() {
    if (s_ != INVALID_SOCKET) ::closesocket(s_);
    s_ = INVALID_SOCKET;
  }

 private:
  SOCKET s_ = INVALID_SOCKET;
};

bool set_nonblocking(SOCKET s) {
  u_long on = 1;
  return ::ioctlsocket(s, FIONBIO, &on) == 0;
}

class Engine {
 public:
  // Records into `book`, which must outlive the engine (its thread stops in ~Engine).
  explicit Engine(NonceBook& book) : book_(book) {}
  ~Engine() { stop(); }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Takes ownership of a non-blocking, bound socket (listening when `stream`).
  void add_listener(UniqueSocket s, std::string endpoint, bool stream) {
    listeners_.push_back({std::move(s), std::move(endpoint), stream});
  }
  void start() { thread_ = std::thread([this] { run(); }); }
  void stop() {
    if (!thread_.joinable()) return;
    stop_ = true;
    thread_.join();
  }

 private:
  struct Listener {
    UniqueSocket s;
    std::string endpoint;
    bool stream;
  };
  struct Connection {
    UniqueSocket s;
    const std::string* endpoint;
    std::string data;
    Clock::time_point deadline;
    bool done = false;
  };

  void record(const std::string& data, const std::string& endpoint, bool final) {
    book_.record(data, endpoint, final);
  }

  void finish(Connection& c) {
    if (c.done) return;
    record(c.data, *c.endpoint, /*final=*/true);
    c.s.reset();
    c.done = true;
  }

  void read_connection(Connection& c) {
    for (;;) {
      char buf[kMaxBytesPerConnection];
      const int room = static_cast<int>(kMaxBytesPerConnection - c.data.size());
      const int n = ::recv(c.s.get(), buf, room, 0);
      if (n == SOCKET_ERROR && ::WSAGetLastError() == WSAEWOULDBLOCK) return;
      if (n <= 0) {  // eof or error (WSAECONNRESET from a peer that reset)
        finish(c);
        return;
      }
      c.data.append(buf, static_cast<std::size_t>(n));
      if (c.data.size() >= kMaxBytesPerConnection) {
        finish(c);  // 4 KiB read: the rest is never looked at
        return;
      }
      record(c.data, *c.endpoint, /*final=*/false);
    }
  }

  void read_datagrams(const Listener& l) {
    char buf[kMaxBytesPerConnection];
    for (std::size_t i = 0; i < kMaxDatagramsPerWakeup; ++i) {
      const int n = ::recv(l.s.get(), buf, sizeof buf, 0);
      if (n == SOCKET_ERROR) {
        // A longer datagram is truncated (WSAEMSGSIZE) and still looked at; anything
        // else (WSAEWOULDBLOCK, WSAECONNRESET from an ICMP "port unreachable") ends this round.
        if (::WSAGetLastError() == WSAEMSGSIZE) {
          record(std::string(buf, sizeof buf), l.endpoint, /*final=*/true);
          continue;
        }
        return;
      }
      record(std::string(buf, static_cast<std::size_t>(n)), l.endpoint, /*final=*/true);
    }
  }

  // Returns false when accept hits a resource limit (caller backs off).
  bool accept_connections(const Listener& l, std::vector<Connection>& conns) {
    while (conns.size() < kMaxConnections) {
      UniqueSocket s(::accept(l.s.get(), nullptr, nullptr));
      if (s) {
        if (!set_nonblocking(s.get())) continue;  // dropped: a blocking recv could hold the thread
        conns.push_back({std::move(s), &l.endpoint, {}, Clock::now() + kConnectionDeadline});
        continue;
      }
      const int e = ::WSAGetLastError();
      if (e == WSAECONNRESET || e == WSAEINTR) continue;
      return e == WSAEWOULDBLOCK;
    }
    return true;
  }

  void run() {
    std::vector<Connection> conns;
    std::vector<WSAPOLLFD> fds;
    std::vector<std::size_t> listener_of;  // fds index -> listeners_ index
    while (!stop_) {
      fds.clear();
      listener_of.clear();
      for (std::size_t i = 0; i < listeners_.size(); ++i) {
        if (listeners_[i].stream && conns.size() >= kMaxConnections) continue;  // new ones wait in the backlog
        fds.push_back({listeners_[i].s.get(), POLLRDNORM, 0});
        listener_of.push_back(i);
      }
      const std::size_t first_conn = fds.size();
      for (const Connection& c : conns) fds.push_back({c.s.get(), POLLRDNORM, 0});

      int timeout_ms = kStopPollMs;
      const auto now = Clock::now();
      for (const Connection& c : conns) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now).count() + 1;
        timeout_ms = std::min(timeout_ms, static_cast<int>(std::max<long long>(0, left)));
      }
      const int ready = fds.empty() ? 0 : ::WSAPoll(fds.data(), static_cast<ULONG>(fds.size()), timeout_ms);
      if (fds.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
      if (ready == SOCKET_ERROR) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }

      for (std::size_t i = 0; i < conns.size(); ++i)
        if (fds[first_conn + i].revents != 0) read_connection(conns[i]);
      const auto after = Clock::now();
      for (Connection& c : conns)
        if (!c.done && after >= c.deadline) finish(c);  // 2 s per connection, whatever it sends
      std::erase_if(conns, [](const Connection& c) { return c.done; });

      bool back_off = false;
      for (std::size_t k = 0; k < listener_of.size(); ++k) {
        if (fds[k].revents == 0) continue;
        const Listener& l = listeners_[listener_of[k]];
        if (l.stream) {
          if (!accept_connections(l, conns)) back_off = true;
        } else {
          read_datagrams(l);
        }
      }
      if (back_off) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // WSAEMFILE and friends
    }
  }

  std::atomic<bool> stop_{false};
  std::vector<Listener> listeners_;
  std::thread thread_;
  NonceBook& book_;
};

}  // namespace

// ---------------------------------------------------------------------------

struct NonceListeners::Impl {
  explicit Impl(NonceBook& book) : engine(book) {}
  WinsockSession winsock;  // outlives the engine's sockets (declared first, destroyed last)
  Engine engine;

  // A new socket bound to addr:0, registered and recorded in `table`; on failure the endpoint
  // is skipped with the reason.
  void add(EndpointTable& table, const std::string& name, IpFamily ip, bool stream, const std::string& addr,
           bool loopback) {
    const int family = ip == IpFamily::v6 ? AF_INET6 : AF_INET;
    // Not inheritable: a probe must never get a listener's handle (the launcher's handle list aside).
    UniqueSocket s(::WSASocketW(family, stream ? SOCK_STREAM : SOCK_DGRAM, stream ? IPPROTO_TCP : IPPROTO_UDP,
                                nullptr, 0, WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT));
    if (!s) {
      table.skip(name, wsa_error("WSASocketW"));
      return;
    }
    auto fail = [&](const std::string& step) { table.skip(name, wsa_error(step + " " + addr)); };
    sockaddr_storage ss{};
    int len = 0;
    if (family == AF_INET6) {
      DWORD one = 1;
      ::setsockopt(s.get(), IPPROTO_IPV6, IPV6_V6ONLY, reinterpret_cast<const char*>(&one), sizeof one);
      auto* sa = reinterpret_cast<sockaddr_in6*>(&ss);
      sa->sin6_family = AF_INET6;
      if (::inet_pton(AF_INET6, addr.c_str(), &sa->sin6_addr) != 1) return fail("inet_pton");
      len = sizeof(sockaddr_in6);
    } else {
      auto* sa = reinterpret_cast<sockaddr_in*>(&ss);
      sa->sin_family = AF_INET;
      if (::inet_pton(AF_INET, addr.c_str(), &sa->sin_addr) != 1) return fail("inet_pton");
      len = sizeof(sockaddr_in);
    }
    // Microsoft Learn, "Using SO_EXCLUSIVEADDRUSE": no other socket may bind our port.
    BOOL exclusive = TRUE;
    ::setsockopt(s.get(), SOL_SOCKET, SO_EXCLUSIVEADDRUSE, reinterpret_cast<const char*>(&exclusive), sizeof exclusive);
    if (::bind(s.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) return fail("bind");
    if (stream && ::listen(s.get(), 64) != 0) return fail("listen");
    if (!set_nonblocking(s.get())) return fail("ioctlsocket(FIONBIO)");
    len = sizeof ss;
    if (::getsockname(s.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0) return fail("getsockname");
    const int port = family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    table.bound(name, stream, ip, addr, port, loopback);
    engine.add_listener(std::move(s), name, stream);
  }
};

NonceListeners::NonceListeners(ExternalHost*, std::string external_unavailable_reason)
    : shared_(std::make_unique<Shared>()), impl_(std::make_unique<Impl>(shared_->book)) {
  EndpointTable& table = shared_->table;
  // The host's own LAN address is found at run time; under Wine these are the Linux host's
  // addresses (eth0's).
  open_local_endpoints(table, *impl_, [](IpFamily ip, std::string* why) {
    return win::host_address(ip == IpFamily::v6 ? AF_INET6 : AF_INET, why);
  });
  // ExternalHost::create() has none on Windows (platform/win/netns.cc), so `external` is always null.
  table.skip_external(external_unavailable_reason);
  impl_->engine.start();
}

NonceListeners::~NonceListeners() = default;

// ---------------------------------------------------------------------------
// Unix-socket listeners: AF_UNIX exists on Windows 10 1803+, not implemented here yet.

struct UnixNonceListener::Impl {};
std::optional<std::string> UnixNonceListener::unavailable_reason() {
  return std::string("unix-socket listeners") + kNotOnWindows;
}
UnixNonceListener::UnixNonceListener(std::string path) : path_(std::move(path)) {
  throw Error(std::string("unix nonce listener") + kNotOnWindows);
}
UnixNonceListener::~UnixNonceListener() = default;
bool UnixNonceListener::wait_for(const std::string&, std::chrono::milliseconds) const { return false; }

}  // namespace breakout
