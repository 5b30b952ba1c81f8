// POSIX nonce listeners: one poll() thread per listener set, every read bounded, peers hostile.
#include "harness/host/net_listeners.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "harness/core/error.h"
#include "harness/host/endpoint_table.h"
#include "harness/host/nonce_book.h"
#include "harness/platform/netns.h"

namespace breakout {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxBytesPerConnection = 4096;
constexpr std::size_t kMaxConnections = 64;
constexpr std::size_t kMaxDatagramsPerWakeup = 64;
constexpr auto kConnectionDeadline = std::chrono::seconds(2);

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

class Engine {
 public:
  // Records into `book`, which must outlive the engine (its thread stops in ~Engine).
  explicit Engine(NonceBook& book) : wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), book_(book) {
    if (wake_fd_ < 0) throw_errno("nonce listener: eventfd");
  }
  ~Engine() {
    stop();
    for (const Listener& l : listeners_) ::close(l.fd);
    ::close(wake_fd_);
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Takes ownership of `fd` (non-blocking, bound; listening when `stream`).
  void add_listener(int fd, std::string endpoint, bool stream) {
    listeners_.push_back({fd, std::move(endpoint), stream});
  }
  void start() { thread_ = std::thread([this] { run(); }); }
  void stop() {
    if (!thread_.joinable()) return;
    const std::uint64_t one = 1;
    ssize_t n;
    do n = ::write(wake_fd_, &one, sizeof one);
    while (n < 0 && errno == EINTR);
    thread_.join();
  }

 private:
  struct Listener {
    int fd;
    std::string endpoint;
    bool stream;
  };
  struct Connection {
    int fd;
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
    ::close(c.fd);
    c.done = true;
  }

  void read_connection(Connection& c) {
    for (;;) {
      char buf[kMaxBytesPerConnection];
      const std::size_t room = kMaxBytesPerConnection - c.data.size();
      const ssize_t n = ::recv(c.fd, buf, room, MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) {  // eof or error
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
      const ssize_t n = ::recv(l.fd, buf, sizeof buf, MSG_DONTWAIT);  // longer datagrams are truncated
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return;
      record(std::string(buf, static_cast<std::size_t>(n)), l.endpoint, /*final=*/true);
    }
  }

  // Returns false when accept hits a resource limit (caller backs off).
  bool accept_connections(const Listener& l, std::vector<Connection>& conns) {
    while (conns.size() < kMaxConnections) {
      const int fd = ::accept4(l.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd >= 0) {
        conns.push_back({fd, &l.endpoint, {}, Clock::now() + kConnectionDeadline});
        continue;
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    return true;
  }

  void run() {
    std::vector<Connection> conns;
    std::vector<pollfd> fds;
    std::vector<std::size_t> listener_of;  // fds index -> listeners_ index
    for (;;) {
      fds.clear();
      listener_of.clear();
      fds.push_back({wake_fd_, POLLIN, 0});
      for (std::size_t i = 0; i < listeners_.size(); ++i) {
        // At the connection cap, new connections wait in the backlog.
        if (listeners_[i].stream && conns.size() >= kMaxConnections) continue;
        fds.push_back({listeners_[i].fd, POLLIN, 0});
        listener_of.push_back(i);
      }
      const std::size_t first_conn = fds.size();
      for (const Connection& c : conns) fds.push_back({c.fd, POLLIN, 0});

      int timeout_ms = -1;
      const auto now = Clock::now();
      for (const Connection& c : conns) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now).count() + 1;
        const int ms = static_cast<int>(std::max<long long>(0, left));
        timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
      }
      const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
      if (ready < 0) {
        if (errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      if (fds[0].revents != 0) break;  // stop()

      for (std::size_t i = 0; i < conns.size(); ++i)
        if (fds[first_conn + i].revents != 0) read_connection(conns[i]);
      const auto after = Clock::now();
      for (Connection& c : conns)
        if (!c.done && after >= c.deadline) finish(c);  // 2 s per connection, whatever it sends
      conns.erase(std::remove_if(conns.begin(), conns.end(), [](const Connection& c) { return c.done; }),
                  conns.end());

      bool back_off = false;
      for (std::size_t k = 0; k < listener_of.size(); ++k) {
        if (fds[1 + k].revents == 0) continue;
        const Listener& l = listeners_[listener_of[k]];
        if (l.stream) {
          if (!accept_connections(l, conns)) back_off = true;
        } else {
          read_datagrams(l);
        }
      }
      if (back_off) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // EMFILE and friends
    }
    for (Connection& c : conns)
      if (!c.done) ::close(c.fd);
  }

  int wake_fd_ = -1;
  std::vector<Listener> listeners_;
  std::thread thread_;
  NonceBook& book_;
};

std::string errno_text(const std::string& step) { return step + ": " + std::strerror(errno); }

// "bo<8 hex>h" / "bo<8 hex>n": the veth pair of an ExternalHost (platform/posix/netns.cc),
// this run's or a concurrent one's; a real "bond0" is not one.
bool is_external_host_veth(const char* name) {
  if (name == nullptr || std::strlen(name) != 11 || std::strncmp(name, "bo", 2) != 0) return false;
  for (int i = 2; i < 10; ++i)
    if (!is_hex(name[i])) return false;
  return name[10] == 'h' || name[10] == 'n';
}

// RAII for getifaddrs(3)'s list.
struct IfAddrs {
  ifaddrs* list = nullptr;
  IfAddrs() = default;
  IfAddrs(const IfAddrs&) = delete;
  IfAddrs& operator=(const IfAddrs&) = delete;
  ~IfAddrs() {
    if (list != nullptr) ::freeifaddrs(list);
  }
};

// The host's own non-loopback address of `family` (net:tcp4-host, tcp6-host;
// "loopback only" means 127.0.0.0/8 and ::1, not the host's own LAN address): the first one, in
// getifaddrs(3) order, of an interface that is UP and not IFF_LOOPBACK. Left out:
// 127/8 and ::1, link-local (169.254/16, fe80::/10: scoped, not reachable as a
// plain address), multicast, and the harness's own external-host links
// (198.18.0.0/15 on "bo<8 hex>h" veths, platform/posix/netns.cc), which exist
// only while a run lasts. nullopt with *why when there is none.
std::optional<std::string> host_address(int family, std::string* why) {
  IfAddrs ifs;
  if (::getifaddrs(&ifs.list) != 0) {
    *why = errno_text("getifaddrs");
    return std::nullopt;
  }
  for (const ifaddrs* a = ifs.list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != family) continue;
    if ((a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_LOOPBACK) != 0) continue;
    if (is_external_host_veth(a->ifa_name)) continue;
    char buf[INET6_ADDRSTRLEN] = {};
    if (family == AF_INET) {
      const std::uint32_t ip = ntohl(reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr);
      if ((ip >> 24) == 127 || (ip >> 16) == 0xa9fe || (ip >> 28) == 0xe || (ip >> 17) == (0xc612u >> 1)) continue;
      ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
    } else {
      const in6_addr& ip = reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr;
      if (IN6_IS_ADDR_LOOPBACK(&ip) || IN6_IS_ADDR_LINKLOCAL(&ip) || IN6_IS_ADDR_MULTICAST(&ip) ||
          IN6_IS_ADDR_V4MAPPED(&ip) || IN6_IS_ADDR_UNSPECIFIED(&ip))
        continue;
      ::inet_ntop(AF_INET6, &ip, buf, sizeof buf);
    }
    return std::string(buf);
  }
  *why = std::string("this host has no non-loopback ") + (family == AF_INET ? "IPv4" : "global IPv6") +
         " address on an interface that is up (getifaddrs)";
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------

struct NonceListeners::Impl {
  explicit Impl(NonceBook& book) : engine(book) {}
  Engine engine;

  // Binds `fd` (or a new socket) to addr:0, registers it and records it in `table`; on
  // failure the endpoint is recorded as skipped with the reason.
  void add(EndpointTable& table, const std::string& name, IpFamily ip, bool stream, const std::string& addr,
           bool loopback, int fd = -2) {
    const int family = ip == IpFamily::v6 ? AF_INET6 : AF_INET;
    const int type = stream ? SOCK_STREAM : SOCK_DGRAM;
    if (fd == -2) fd = ::socket(family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      table.skip(name, errno_text("socket"));
      return;
    }
    auto fail = [&](const std::string& step) {
      table.skip(name, errno_text(step + " " + addr));
      ::close(fd);
    };
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (family == AF_INET6) {
      const int one = 1;
      ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
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
    if (::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) return fail("bind");
    if (stream && ::listen(fd, 64) != 0) return fail("listen");
    len = sizeof ss;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return fail("getsockname");
    const int port = family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    table.bound(name, stream, ip, addr, port, loopback);
    engine.add_listener(fd, name, stream);
  }
};

NonceListeners::NonceListeners(ExternalHost* external, std::string external_unavailable_reason)
    : shared_(std::make_unique<Shared>()), impl_(std::make_unique<Impl>(shared_->book)) {
  EndpointTable& table = shared_->table;
  // The host's own LAN address is bound to that address only, so nothing but this host
  // reaches it (port chosen by the kernel).
  open_local_endpoints(table, *impl_, [](IpFamily ip, std::string* why) {
    return host_address(ip == IpFamily::v6 ? AF_INET6 : AF_INET, why);
  });
  if (external != nullptr) {
    // proxy-allowed / proxy-denied: network = "proxy"'s two destinations, told apart by port
    // (what an allowlisting proxy that takes "host:port" entries decides on, srt's allowedDomains).
    for (const auto& [name, stream] : {std::pair{"tcp4-external", true}, std::pair{"udp4-external", false},
                                       std::pair{"proxy-allowed", true}, std::pair{"proxy-denied", true}}) {
      const int fd =
          external->socket_in_namespace(AF_INET, (stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) {
        table.skip(name, errno_text("socket in namespace " + external->name()));
        continue;
      }
      impl_->add(table, name, IpFamily::v4, stream, external->address(), false, fd);
    }
    // name-denied: where the run's name server sends the denied names (host/name_server.h); an
    // address of its own, so a name allowlist without ports still tells it from proxy-allowed.
    const int fd = external->socket_in_namespace(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) table.skip("name-denied", errno_text("socket in namespace " + external->name()));
    else impl_->add(table, "name-denied", IpFamily::v4, true, external->second_address(), false, fd);
  } else {
    table.skip_external(external_unavailable_reason);
  }
  impl_->engine.start();
}

NonceListeners::~NonceListeners() = default;

// ---------------------------------------------------------------------------

struct UnixNonceListener::Impl {
  NonceBook book;  // before the engine: outlives its thread
  Engine engine{book};
};

std::optional<std::string> UnixNonceListener::unavailable_reason() { return std::nullopt; }

UnixNonceListener::UnixNonceListener(std::string path) : path_(std::move(path)), impl_(std::make_unique<Impl>()) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (path_.empty() || path_.size() >= sizeof sa.sun_path)
    throw Error("unix listener " + path_ + ": path empty or longer than " + std::to_string(sizeof sa.sun_path - 1) +
                " bytes");
  // "@name" is an abstract address (unix(7)): sun_path[0] = '\0', no file, the
  // name's length is the address length, and it lives in the caller's netns.
  const bool abstract = path_[0] == '@';
  std::memcpy(sa.sun_path, path_.c_str(), path_.size() + 1);
  if (abstract) sa.sun_path[0] = '\0';
  const auto len = abstract ? static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path_.size())
                            : static_cast<socklen_t>(sizeof sa);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw_errno("unix listener: socket");
  auto fail = [&](const std::string& step) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    throw_errno("unix listener " + path_ + ": " + step);
  };
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), len) != 0) {
    struct stat st {};
    // A stale socket from an earlier run may be replaced; anything else is not ours.
    if (abstract || errno != EADDRINUSE || ::lstat(path_.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode) ||
        ::unlink(path_.c_str()) != 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&sa), len) != 0)
      fail("bind");
  }
  // Whatever uid the sandboxed probe runs as, it may connect (the allowed control).
  if (!abstract) ::chmod(path_.c_str(), 0666);
  if (::listen(fd, 64) != 0) {
    const int saved = errno;
    if (!abstract) ::unlink(path_.c_str());
    errno = saved;
    fail("listen");
  }
  impl_->engine.add_listener(fd, "unix", true);
  impl_->engine.start();
}

UnixNonceListener::~UnixNonceListener() {
  impl_.reset();
  struct stat st {};
  if (path_[0] != '@' && ::lstat(path_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path_.c_str());
}

bool UnixNonceListener::wait_for(const std::string& nonce, std::chrono::milliseconds max_wait) const {
  return impl_->book.wait_for(nonce, nullptr, max_wait);
}

}  // namespace breakout
