// dial_in on POSIX: a non-blocking connect and a bounded read (inbound_dial.h).
#include "harness/host/inbound_dial.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace {

using Clock = std::chrono::steady_clock;

int left_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// "tcp:127.0.0.1:P", "tcp:[::1]:P" or "unix:/path" into a sockaddr; "" or why not.
std::string parse(const std::string& address, sockaddr_storage* ss, socklen_t* len) {
  if (address.rfind("unix:", 0) == 0) {
    auto* su = reinterpret_cast<sockaddr_un*>(ss);
    const std::string path = address.substr(5);
    if (path.empty() || path[0] != '/' || path.size() >= sizeof su->sun_path) return "not an absolute socket path";
    su->sun_family = AF_UNIX;
    std::memcpy(su->sun_path, path.c_str(), path.size() + 1);
    *len = sizeof *su;
    return "";
  }
  if (address.rfind("tcp:", 0) != 0) return "neither tcp: nor unix:";
  const std::string rest = address.substr(4);
  const auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon + 1 == rest.size() || rest.size() - colon > 6) return "no port";
  const std::string host = rest.substr(0, colon), port_text = rest.substr(colon + 1);
  int port = 0;
  for (char ch : port_text) {
    if (ch < '0' || ch > '9') return "bad port";
    port = port * 10 + (ch - '0');
  }
  if (port < 1 || port > 65535) return "bad port";
  if (host == "127.0.0.1") {
    auto* s4 = reinterpret_cast<sockaddr_in*>(ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(static_cast<std::uint16_t>(port));
    s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    *len = sizeof *s4;
    return "";
  }
  if (host == "[::1]") {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(static_cast<std::uint16_t>(port));
    s6->sin6_addr = in6addr_loopback;
    *len = sizeof *s6;
    return "";
  }
  return "not a loopback address (the harness connects to 127.0.0.1 and ::1 only)";
}

}  // namespace

DialResult dial_in(const std::string& address, std::chrono::milliseconds budget) {
  DialResult d;
  const auto deadline = Clock::now() + budget;
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (std::string why = parse(address, &ss, &len); !why.empty()) {
    d.error = "refused to dial: " + why;
    return d;
  }
  UniqueFd fd(::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) {
    d.error = std::string("socket: ") + std::strerror(errno);
    return d;
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&ss), len) != 0 && errno != EINPROGRESS) {
    d.error = std::string("connect: ") + std::strerror(errno);
    return d;
  }
  pollfd p{fd.get(), POLLOUT, 0};
  if (::poll(&p, 1, left_ms(deadline)) != 1) {
    d.error = "connect: timed out";
    return d;
  }
  int err = 0;
  socklen_t elen = sizeof err;
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &elen);
  if (err != 0) {
    d.error = std::string("connect: ") + std::strerror(err);
    return d;
  }
  d.connected = true;
  char buf[512];
  while (d.received.size() < kDialReadCap) {
    p = {fd.get(), POLLIN, 0};
    const int n = ::poll(&p, 1, left_ms(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) {
      if (d.received.empty()) d.error = "nothing received";
      break;
    }
    const ssize_t got = ::recv(fd.get(), buf, std::min(sizeof buf, kDialReadCap - d.received.size()), 0);
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (got <= 0) break;
    d.received.append(buf, static_cast<std::size_t>(got));
  }
  return d;
}

}  // namespace breakout
