// breakout-probe-net-connect (Windows): tries to deliver a nonce to a TCP or UDP endpoint (Winsock), directly or through a proxy.
//
//   breakout-probe-net-connect --target SPEC --nonce N [--via-proxy]
//
// The Windows twin of probes/net-connect.cc for its numeric targets:
//   tcp:ADDR:PORT   stream connect; ADDR an IPv4 address or [IPv6] (numeric only:
//                   the probe never resolves a name, so it reaches only what it is given)
//   udp:ADDR:PORT   datagram, sent 3 times 50 ms apart
//   http://ADDR[:PORT][/...], https://ADDR[:PORT][/...]
//                   a TCP target with a URL scheme (matters for --via-proxy only)
// unix: and env-unix: targets are POSIX-probe only here: usage error (64).
// --via-proxy: for TCP targets, the POSIX probe's curl rules (probes/common/proxy_target.h): scheme
//   http uses http_proxy, every other scheme https_proxy then HTTPS_PROXY; then
//   all_proxy, ALL_PROXY; no_proxy/NO_PROXY bypasses. Windows difference: environment
//   names are case-insensitive (GetEnvironmentVariableW; the block is sorted
//   case-insensitively, Microsoft Learn "Changing Environment Variables"), so http_proxy
//   IS HTTP_PROXY here, as it is for curl on Windows. The proxy's address must be numeric
//   too (else step "resolve-proxy"). Through a proxy the probe sends "CONNECT host:port
//   HTTP/1.1", Host, Proxy-Authorization Basic when the proxy URL has credentials (as
//   curl does; reported only masked), "X-Breakout-Nonce: N", a blank line, then the
//   nonce line into the tunnel, and reports the proxy's status line: the nonce reaches the proxy's listener,
//   and the target's only if the proxy forwards it.
// The probe sends "BREAKOUT-NONCE <N>\n"; the harness's listener decides whether it arrived.
// Result: ok=true when connect and send succeeded from inside (UDP: one datagram
// sent; through a proxy: the proxy took the request); otherwise errno (closest POSIX
// value), "win32_error" and "[win32] step: message (error N)". Fields: proto, via
// ("direct"|"proxy"), proxy, proxy_var, proxy_status, address, sent, received.
// Bounds: 2 s connect timeout, reads of at most 4 KiB within 2 s (proxy answer) or
// 0.5 s, a 15 s watchdog over everything.
// Microsoft Learn: "connect function" (non-blocking connect completes when the
// socket becomes writable), "WSAPoll function", "shutdown function".
// Exit: 0 ok, 1 failed attempt, 64 usage error.
//
// Windows only (mingw-w64).
#include <winsock2.h>
#include <ws2tcpip.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "harness/core/wtf8.h"
#include "probes/common/args.h"
#include "probes/common/proxy_target.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-net-connect --target SPEC --nonce N [--via-proxy] [--witness PATH]\n"
    "  SPEC: tcp:ADDR:PORT | udp:ADDR:PORT | http[s]://ADDR[:PORT][/...]   (ADDR numeric; IPv6 as [v6-address])\n";
constexpr int kConnectTimeoutMs = 2000;
constexpr std::size_t kMaxRead = 4096;

// Closes a SOCKET on every path.
class Socket {
 public:
  explicit Socket(SOCKET s = INVALID_SOCKET) : s_(s) {}
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

// Frees getaddrinfo's list on every path.
struct AddrInfo {
  addrinfo* ai = nullptr;
  AddrInfo() = default;
  AddrInfo(const AddrInfo&) = delete;
  AddrInfo& operator=(const AddrInfo&) = delete;
  ~AddrInfo() {
    if (ai != nullptr) ::freeaddrinfo(ai);
  }
};

// The variable's value, "" when unset or empty; bounded (a 32767-character value is the Windows maximum).
// GetEnvironmentVariableW matches names case-insensitively (Microsoft Learn, "Changing Environment
// Variables": the block is sorted case-insensitively), so curl's httpoxy rule (lower-case http_proxy
// only) cannot tell it from HTTP_PROXY here.
std::string env_value(const char* name) {
  const std::wstring wname = wide(name);
  std::wstring v(32767, L'\0');
  const DWORD n = ::GetEnvironmentVariableW(wname.c_str(), v.data(), static_cast<DWORD>(v.size()));
  if (n == 0 || n >= v.size()) return "";
  v.resize(n);
  return breakout::wtf8_from_utf16(std::u16string_view(reinterpret_cast<const char16_t*>(v.data()), v.size()));
}

void fail_wsa(ProbeReport& r, const std::string& step) { fail_win32(r, step, static_cast<DWORD>(::WSAGetLastError())); }

// Reads what the peer sends for up to `ms` (or until EOF / 4 KiB; or the end of an HTTP header).
std::string read_for(SOCKET s, int ms, bool stop_at_header_end) {
  std::string got;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (got.size() < kMaxRead) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    WSAPOLLFD p{s, POLLRDNORM, 0};
    if (::WSAPoll(&p, 1, static_cast<INT>(left.count())) <= 0) break;
    char buf[1024];
    const int n = ::recv(s, buf, static_cast<int>(std::min<std::size_t>(sizeof buf, kMaxRead - got.size())), 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
    if (stop_at_header_end && got.find("\r\n\r\n") != std::string::npos) break;
  }
  return got;
}

// Non-blocking connect bounded by kConnectTimeoutMs; 0 or the Win32 error.
DWORD connect_bounded(SOCKET s, const addrinfo* ai) {
  u_long on = 1;
  ::ioctlsocket(s, FIONBIO, &on);
  DWORD err = ::connect(s, ai->ai_addr, static_cast<int>(ai->ai_addrlen)) == 0 ? 0 : ::WSAGetLastError();
  if (err == WSAEWOULDBLOCK) {
    WSAPOLLFD p{s, POLLWRNORM, 0};
    const int ready = ::WSAPoll(&p, 1, kConnectTimeoutMs);
    int so_error = 0, len = sizeof so_error;
    ::getsockopt(s, SOL_SOCKET, SO_ERROR, reinterpret_cast<char*>(&so_error), &len);
    if (ready == 0) err = WSAETIMEDOUT;
    else if (so_error != 0) err = static_cast<DWORD>(so_error);
    else if ((p.revents & (POLLERR | POLLHUP)) != 0) err = WSAECONNREFUSED;
    else err = 0;
  }
  u_long off = 0;
  ::ioctlsocket(s, FIONBIO, &off);
  return err;
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"target", Args::kValue}, {"nonce", Args::kValue}, {"via-proxy", Args::kFlag}, {"witness", Args::kValue}});
  const std::string spec = args.require("target");
  const std::string nonce = args.require("nonce");
  const bool via_proxy = args.has("via-proxy");
  if (nonce.empty() || nonce.size() > 256) args.usage_error("--nonce must be 1..256 characters");
  for (char ch : nonce)
    if (ch <= ' ' || ch > '~') args.usage_error("--nonce must be printable ASCII without spaces");
  const std::optional<NetTarget> target = parse_net_target(spec);
  if (!target || target->proto == "unix") args.usage_error("--target must be tcp:ADDR:PORT, udp:ADDR:PORT or http[s]://ADDR[:PORT] on Windows");
  const bool udp = target->proto == "udp";
  start_watchdog(std::chrono::seconds(15));  // hard bound, like alarm(15) in the POSIX probe

  ProbeReport r("net-connect");
  if (auto w = args.get("witness")) r.witness_to(*w);
  r.set("target", spec);
  r.set("proto", target->proto);
  r.set("via", "direct");
  const std::string nonce_line = "BREAKOUT-NONCE " + nonce + "\n";
  std::string payload = nonce_line;
  std::string connect_host = target->host, connect_port = target->port;
  ProxyChoice proxy;
  if (via_proxy && !udp) {
    proxy = pick_proxy(*target, &env_value);
    if (proxy.no_proxy_matched) r.set("no_proxy_matched", true);
  } else if (via_proxy) {
    r.set("detail", "no proxy for udp targets");
  }
  if (!proxy.var.empty()) {
    r.set("via", "proxy");
    r.set("proxy_var", proxy.var);
    if (!proxy.parsed) {
      r.fail("proxy-url (only http:// proxies are spoken)", EPROTONOSUPPORT);
      r.emit();
      return r.exit_code();
    }
    r.set("proxy", bracket(proxy.host) + ":" + proxy.port);
    if (proxy.has_credentials) {
      r.set("proxy_auth", "basic");
      r.set("proxy_credentials", masked_credentials(proxy));
    }
    payload = connect_request(*target, proxy, nonce) + nonce_line;
    connect_host = proxy.host;
    connect_port = proxy.port;
  }

  WSADATA wsa{};
  if (const int rc = ::WSAStartup(MAKEWORD(2, 2), &wsa); rc != 0) {
    fail_win32(r, "WSAStartup", static_cast<DWORD>(rc));
    r.emit();
    return r.exit_code();
  }
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM;
  AddrInfo ai;
  if (const int rc = ::getaddrinfo(connect_host.c_str(), connect_port.c_str(), &hints, &ai.ai); rc != 0 || !ai.ai) {
    fail_win32(r, proxy.var.empty() ? "getaddrinfo" : "resolve-proxy (numeric addresses only)", static_cast<DWORD>(rc));
    r.emit();
    return r.exit_code();
  }
  r.set("address", bracket(connect_host) + ":" + connect_port);
  Socket s(::socket(ai.ai->ai_family, ai.ai->ai_socktype, ai.ai->ai_protocol));
  if (!s.valid()) {
    fail_wsa(r, "socket");
  } else if (udp) {
    int sent_ok = 0;
    DWORD last_err = 0;
    if (::connect(s.get(), ai.ai->ai_addr, static_cast<int>(ai.ai->ai_addrlen)) != 0) last_err = ::WSAGetLastError();
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
  } else if (const DWORD err = connect_bounded(s.get(), ai.ai); err != 0) {
    fail_win32(r, "connect", err);
  } else if (::send(s.get(), payload.data(), static_cast<int>(payload.size()), 0) != static_cast<int>(payload.size())) {
    fail_wsa(r, "send");
  } else {
    r.succeed();
    r.set("sent", static_cast<unsigned long long>(payload.size()));
    std::string got;
    if (!proxy.var.empty()) {
      // Keep the tunnel open while the proxy answers and forwards the nonce.
      got = read_for(s.get(), 2000, true);
      int status = 0;
      if (got.rfind("HTTP/", 0) == 0 && got.size() > 12) status = std::atoi(got.c_str() + 9);
      r.set("proxy_status", status);
      r.set("proxy_response", got.substr(0, got.find("\r\n")).substr(0, 200));
      got += read_for(s.get(), 500, false);
    } else {
      ::shutdown(s.get(), SD_SEND);  // half-close: the listener reads everything before we go
      got = read_for(s.get(), 500, false);
    }
    r.set("received", static_cast<unsigned long long>(got.size()));
  }
  r.emit();
  return r.exit_code();
}
