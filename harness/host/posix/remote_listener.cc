// POSIX RemoteNonceListener (asking a `breakout listen` from the host) and serve_nonces (being one).
#include "harness/host/remote_listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <thread>
#include <unordered_set>
#include <vector>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/host/net_listeners.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::size_t kMaxRemoteConnections = 64;
constexpr std::size_t kMaxRead = 4096;
constexpr auto kConnectionLife = std::chrono::seconds(5);
constexpr std::size_t kRemembered = 100000;
constexpr milliseconds kAskTimeout{2000};

struct Address {
  sockaddr_storage ss{};
  socklen_t len = 0;
};

// "A.B.C.D:PORT" / "[V6]:PORT" -> host, port, v6. Literal addresses only.
void split_host_port(const std::string& s, std::string* host, std::string* port, bool* v6) {
  const auto bad = [&](const std::string& why) { return Error("bad-endpoint", "'" + s + "': " + why); };
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != ':') throw bad("expected [V6]:PORT");
    *host = s.substr(1, close - 1), *port = s.substr(close + 2), *v6 = true;
  } else {
    const auto colon = s.rfind(':');
    if (colon == std::string::npos || s.find(':') != colon) throw bad("expected A.B.C.D:PORT or [V6]:PORT");
    *host = s.substr(0, colon), *port = s.substr(colon + 1), *v6 = false;
  }
  if (port->empty() || port->size() > 5 || port->find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(*port) > 65535)
    throw bad("the port must be 0..65535");
  unsigned char buf[sizeof(in6_addr)];
  if (::inet_pton(*v6 ? AF_INET6 : AF_INET, host->c_str(), buf) != 1)
    throw bad("the host must be a literal IPv4 or [IPv6] address (no names: the sandbox might resolve them differently)");
}

Address address_of(const std::string& host, const std::string& port, bool v6) {
  Address a;
  if (v6) {
    auto* sa = reinterpret_cast<sockaddr_in6*>(&a.ss);
    sa->sin6_family = AF_INET6;
    sa->sin6_port = htons(static_cast<std::uint16_t>(std::stoi(port)));
    ::inet_pton(AF_INET6, host.c_str(), &sa->sin6_addr);
    a.len = sizeof(sockaddr_in6);
  } else {
    auto* sa = reinterpret_cast<sockaddr_in*>(&a.ss);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(static_cast<std::uint16_t>(std::stoi(port)));
    ::inet_pton(AF_INET, host.c_str(), &sa->sin_addr);
    a.len = sizeof(sockaddr_in);
  }
  return a;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// One bounded exchange with the listener: connect, send `line`, read the reply until EOF or 64 bytes.
std::string exchange(const Address& a, const std::string& line, bool want_reply) {
  const auto deadline = Clock::now() + kAskTimeout;
  UniqueFd fd(::socket(a.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) throw Error(std::string("listener: socket: ") + std::strerror(errno));
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a.ss), a.len) != 0 && errno != EINPROGRESS)
    throw Error(std::string("listener: connect: ") + std::strerror(errno));
  pollfd p{fd.get(), POLLOUT, 0};
  if (::poll(&p, 1, remaining_ms(deadline)) != 1) throw Error("listener: connect timed out");
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) throw Error(std::string("listener: connect: ") + std::strerror(err));
  if (::send(fd.get(), line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size()))
    throw Error("listener: short send");
  if (!want_reply) return "";
  std::string reply;
  char buf[64];
  while (reply.size() < sizeof buf) {
    p = {fd.get(), POLLIN, 0};
    if (::poll(&p, 1, remaining_ms(deadline)) != 1) throw Error("listener: no answer within 2 s");
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf - reply.size(), 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
    if (reply.find('\n') != std::string::npos) break;
  }
  return reply;
}

bool nonce_chars(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

RemoteNonceListener::RemoteNonceListener(const std::string& host_port) {
  split_host_port(host_port, &host_, &port_, &v6_);
  if (port_ == "0") throw Error("bad-endpoint", "'" + host_port + "': port 0 is not an endpoint");
}

std::string RemoteNonceListener::label() const { return v6_ ? "[" + host_ + "]:" + port_ : host_ + ":" + port_; }
std::string RemoteNonceListener::spec() const { return "tcp:" + label(); }

bool RemoteNonceListener::wait_for(const std::string& nonce, milliseconds max_wait) const {
  const auto deadline = Clock::now() + max_wait;
  const Address a = address_of(host_, port_, v6_);
  for (;;) {
    const std::string reply = exchange(a, std::string(kQueryMarker) + nonce + "\n", true);
    if (reply == "SEEN\n") return true;
    if (reply != "UNSEEN\n")
      throw Error("listener " + label() + " answered neither SEEN nor UNSEEN (is it `breakout listen`?)");
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(50));
  }
}

std::optional<std::string> RemoteNonceListener::preflight() const {
  const std::string nonce = random_hex(16);
  try {
    exchange(address_of(host_, port_, v6_), std::string(kNonceMarker) + nonce + "\n", false);
    if (wait_for(nonce, milliseconds(2000))) return std::nullopt;
    return "listener " + label() + " did not report a nonce the host sent it";
  } catch (const std::exception& e) {
    return "listener " + label() + " cannot be used from the host: " + e.what();
  }
}

int serve_nonces(const std::string& bind_host_port, std::chrono::seconds max_time, const std::atomic<bool>* stop,
                 std::ostream& log) {
  std::string host, port;
  bool v6 = false;
  split_host_port(bind_host_port, &host, &port, &v6);
  Address a = address_of(host, port, v6);
  UniqueFd server(::socket(a.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (server.get() < 0) throw Error(std::string("listen: socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(server.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(server.get(), reinterpret_cast<sockaddr*>(&a.ss), a.len) != 0)
    throw Error("listen: bind " + bind_host_port + ": " + std::strerror(errno));
  if (::listen(server.get(), 64) != 0) throw Error(std::string("listen: ") + std::strerror(errno));
  socklen_t len = sizeof a.ss;
  ::getsockname(server.get(), reinterpret_cast<sockaddr*>(&a.ss), &len);
  const int bound = v6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&a.ss)->sin6_port)
                       : ntohs(reinterpret_cast<sockaddr_in*>(&a.ss)->sin_port);
  log << "listening on " << (v6 ? "[" + host + "]" : host) << ":" << bound << std::endl;

  struct Conn {
    UniqueFd fd;
    std::string buf;
    Clock::time_point started;
  };
  std::vector<Conn> conns;
  std::unordered_set<std::string> seen;
  std::deque<std::string> order;  // FIFO bound on what is remembered
  const auto remember = [&](const std::string& n) {
    if (!seen.insert(n).second) return;
    order.push_back(n);
    if (order.size() > kRemembered) seen.erase(order.front()), order.pop_front();
    log << "nonce " << n << std::endl;
  };
  // A connection's bytes so far: a query is answered and closes it; nonce lines are recorded.
  // Returns false when the connection is done.
  const auto handle = [&](Conn& c) {
    if (c.buf.rfind(kQueryMarker, 0) == 0) {
      const auto nl = c.buf.find('\n');
      if (nl == std::string::npos) return c.buf.size() < kMaxRead;
      const std::string n = c.buf.substr(std::strlen(kQueryMarker), nl - std::strlen(kQueryMarker));
      const char* reply = nonce_chars(n) && seen.count(n) ? "SEEN\n" : "UNSEEN\n";
      ::send(c.fd.get(), reply, std::strlen(reply), MSG_NOSIGNAL);
      return false;
    }
    for (std::size_t at = c.buf.find(kNonceMarker); at != std::string::npos; at = c.buf.find(kNonceMarker, at + 1)) {
      const std::size_t from = at + std::strlen(kNonceMarker), nl = c.buf.find('\n', from);
      if (nl == std::string::npos) break;
      if (const std::string n = c.buf.substr(from, nl - from); nonce_chars(n)) remember(n);
    }
    return c.buf.size() < kMaxRead;
  };

  const auto end = Clock::now() + max_time;
  while (Clock::now() < end && !(stop && stop->load())) {
    std::vector<pollfd> fds{{server.get(), POLLIN, 0}};
    for (const auto& c : conns) fds.push_back({c.fd.get(), POLLIN, 0});
    const int n = ::poll(fds.data(), fds.size(), 100);
    if (n < 0 && errno != EINTR) throw Error(std::string("listen: poll: ") + std::strerror(errno));
    std::vector<bool> done(conns.size(), false);
    for (std::size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      if (Clock::now() - c.started > kConnectionLife) done[i] = true;
      if (done[i] || !(fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[1024];
      const std::size_t want = std::min(sizeof buf, kMaxRead - std::min(kMaxRead, c.buf.size()));
      const ssize_t got = want ? ::recv(c.fd.get(), buf, want, 0) : 0;
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got > 0) c.buf.append(buf, static_cast<std::size_t>(got));
      done[i] = !handle(c) || got <= 0;
    }
    for (std::size_t i = conns.size(); i-- > 0;)
      if (done[i]) conns.erase(conns.begin() + static_cast<std::ptrdiff_t>(i));
    if (fds[0].revents & POLLIN) {
      while (conns.size() < kMaxRemoteConnections) {
        UniqueFd c(::accept4(server.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (c.get() < 0) break;
        conns.push_back({std::move(c), {}, Clock::now()});
      }
    }
  }
  return 0;
}

}  // namespace breakout
