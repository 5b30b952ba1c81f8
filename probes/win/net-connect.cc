// breakout-probe-net-connect (Windows): tries to deliver a nonce to a TCP or UDP endpoint (Winsock).
//
//   breakout-probe-net-connect --target SPEC --nonce N
//
// The Windows twin of probes/net-connect.cc for its numeric targets:
//   tcp:ADDR:PORT   stream connect; ADDR an IPv4 address or [IPv6] (numeric only:
//                   the probe never resolves a name, so it reaches only what it is given)
//   udp:ADDR:PORT   datagram, sent 3 times 50 ms apart
// unix:, env-unix:, http(s):// targets and --via-proxy are POSIX-probe only here:
// usage error (64). The probe sends "BREAKOUT-NONCE <N>\n"; the harness's listener
// decides whether it arrived.
// Result: ok=true when connect and send succeeded from inside (UDP: one datagram
// sent); otherwise errno (closest POSIX value), "win32_error" and
// "[win32] step: message (error N)". Fields: proto, via ("direct"), address, sent,
// received. Bounds: 2 s connect timeout, a 15 s watchdog over everything.
// Microsoft Learn: "connect function" (non-blocking connect completes when the
// socket becomes writable), "WSAPoll function", "shutdown function".
// Exit: 0 ok, 1 failed attempt, 64 usage error.
//
// Windows only (mingw-w64).
#include <winsock2.h>
#include <ws2tcpip.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "probes/common/args.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-net-connect --target SPEC --nonce N\n"
    "  SPEC: tcp:ADDR:PORT | udp:ADDR:PORT   (ADDR numeric; IPv6 as [v6-address])\n";
constexpr int kConnectTimeoutMs = 2000;

// Closes a SOCKET on every path.
class Socket {
 public:
  explicit Socket(SOCKET s) : s_(s) {}
  ~Socket() {
    if (s_ != INVALID_SOCKET) ::closesocket(s_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  SOCKET get() const { return s_; }
  bool valid() const { return s_ != INVALID_SOCKET; }

 private:
  SOCKET s_;
};

void fail_wsa(ProbeReport& r, const std::string& step) { fail_win32(r, step, static_cast<DWORD>(::WSAGetLastError())); }

// Reads what the peer sends for up to `ms` (or until EOF / 4 KiB).
std::string read_for(SOCKET s, int ms) {
  std::string got;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (got.size() < 4096) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    WSAPOLLFD p{s, POLLRDNORM, 0};
    if (::WSAPoll(&p, 1, static_cast<INT>(left.count())) <= 0) break;
    char buf[1024];
    const int n = ::recv(s, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage, {{"target", Args::kValue}, {"nonce", Args::kValue}});
  const std::string spec = args.require("target");
  const std::string nonce = args.require("nonce");
  if (nonce.empty() || nonce.size() > 256) args.usage_error("--nonce must be 1..256 characters");
  for (char ch : nonce)
    if (ch <= ' ' || ch > '~') args.usage_error("--nonce must be printable ASCII without spaces");
  const bool tcp = spec.rfind("tcp:", 0) == 0, udp = spec.rfind("udp:", 0) == 0;
  if (!tcp && !udp) args.usage_error("--target must be tcp:ADDR:PORT or udp:ADDR:PORT on Windows");
  const std::string rest = spec.substr(4);
  std::string host, port;
  if (!rest.empty() && rest[0] == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
      args.usage_error("bad [v6]:port in --target");
    host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon != rest.find(':')) args.usage_error("bad ADDR:PORT in --target");
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  std::thread([] {  // hard bound, like alarm(15) in the POSIX probe
    std::this_thread::sleep_for(std::chrono::seconds(15));
    std::_Exit(1);
  }).detach();

  ProbeReport r("net-connect");
  r.set("target", spec);
  r.set("proto", tcp ? "tcp" : "udp");
  r.set("via", "direct");
  WSADATA wsa{};
  if (const int rc = ::WSAStartup(MAKEWORD(2, 2), &wsa); rc != 0) {
    fail_win32(r, "WSAStartup", static_cast<DWORD>(rc));
    r.emit();
    return r.exit_code();
  }
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = tcp ? SOCK_STREAM : SOCK_DGRAM;
  addrinfo* ai = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &ai); rc != 0 || ai == nullptr) {
    fail_win32(r, "getaddrinfo", static_cast<DWORD>(rc));
    r.emit();
    return r.exit_code();
  }
  r.set("address", (ai->ai_family == AF_INET6 ? "[" + host + "]" : host) + ":" + port);
  const std::string payload = "BREAKOUT-NONCE " + nonce + "\n";
  Socket s(::socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol));
  if (!s.valid()) {
    fail_wsa(r, "socket");
  } else if (udp) {
    int sent_ok = 0;
    DWORD last_err = 0;
    if (::connect(s.get(), ai->ai_addr, static_cast<int>(ai->ai_addrlen)) != 0) last_err = ::WSAGetLastError();
    for (int i = 0; i < 3 && last_err == 0; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (::send(s.get(), payload.data(), static_cast<int>(payload.size()), 0) == static_cast<int>(payload.size()))
        ++sent_ok;
      else
        last_err = ::WSAGetLastError();  // e.g. WSAECONNRESET after an ICMP port unreachable
    }
    r.set("datagrams_sent", sent_ok);
    if (sent_ok > 0) {
      r.succeed();
      r.set("sent", static_cast<unsigned long long>(payload.size()));
    } else {
      fail_win32(r, "send", last_err);
    }
  } else {
    u_long on = 1;
    ::ioctlsocket(s.get(), FIONBIO, &on);
    bool connected = ::connect(s.get(), ai->ai_addr, static_cast<int>(ai->ai_addrlen)) == 0;
    DWORD err = connected ? 0 : ::WSAGetLastError();
    if (!connected && err == WSAEWOULDBLOCK) {
      WSAPOLLFD p{s.get(), POLLWRNORM, 0};
      const int ready = ::WSAPoll(&p, 1, kConnectTimeoutMs);
      int so_error = 0, len = sizeof so_error;
      ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, reinterpret_cast<char*>(&so_error), &len);
      if (ready == 0) err = WSAETIMEDOUT;
      else if (so_error != 0) err = static_cast<DWORD>(so_error);
      else if ((p.revents & (POLLERR | POLLHUP)) != 0) err = WSAECONNREFUSED;
      else connected = true;
    }
    u_long off = 0;
    ::ioctlsocket(s.get(), FIONBIO, &off);
    if (!connected) {
      fail_win32(r, "connect", err);
    } else if (::send(s.get(), payload.data(), static_cast<int>(payload.size()), 0) != static_cast<int>(payload.size())) {
      fail_wsa(r, "send");
    } else {
      r.succeed();
      r.set("sent", static_cast<unsigned long long>(payload.size()));
      ::shutdown(s.get(), SD_SEND);  // half-close: the listener reads everything before we go
      r.set("received", static_cast<unsigned long long>(read_for(s.get(), 500).size()));
    }
  }
  ::freeaddrinfo(ai);
  r.emit();
  return r.exit_code();
}
