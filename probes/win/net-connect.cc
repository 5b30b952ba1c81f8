// breakout-probe-net-connect (Windows): tries to deliver a nonce to a TCP or UDP endpoint (Winsock), directly or through a proxy.
//
//   breakout-probe-net-connect --target SPEC --nonce N [--via-proxy]
//       [--launch direct|create-process|shellexecute|cmd-start|wmi]
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
// --launch other than direct (the default): the probe does not connect itself; it starts a copy
// of itself (GetModuleFileNameW) through that launch path (relaunch.h) with the same --target,
// --nonce and --via-proxy plus --report-to FILE (a file in its cwd), waits for it at most 8 s,
// and reports what the grandchild reported there: fields launch, launch_state ("started",
// "unavailable": the path is absent here, "failed"), launch_reason, grandchild_pid,
// grandchild_finished, grandchild_killed, grandchild_exit_code, grandchild_report (its report
// line, at most 4 KiB, evidence only); ok is the grandchild's. The nonce is on the grandchild's
// command line, so the harness's nonce scan finds a grandchild that left the job (WMI).
// --report-to FILE (internal, the grandchild): closes the standard handles it was given first (a
// launcher may hand it the spawner's pipes), writes its report line only to FILE.
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
#include "probes/win/relaunch.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-net-connect --target SPEC --nonce N [--via-proxy] [--witness PATH]\n"
    "         [--launch direct|create-process|shellexecute|cmd-start|wmi]\n"
    "  SPEC: tcp:ADDR:PORT | udp:ADDR:PORT | http[s]://ADDR[:PORT][/...]   (ADDR numeric; IPv6 as [v6-address])\n";
constexpr int kConnectTimeoutMs = 2000;
constexpr std::size_t kMaxRead = 4096;
constexpr DWORD kGrandchildWaitMs = 8000;  // within the 15 s watchdog and a policy's 10 s timeout

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

std::string utf8(const std::wstring& w) { return breakout::wtf8_from_utf16(std::u16string(w.begin(), w.end())); }

std::wstring self_path() {
  std::wstring buf(32768, L'\0');
  buf.resize(::GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size())));
  return buf;
}

// At most kMaxRead bytes of `file` ("" when it cannot be read).
std::string read_bounded(const std::wstring& file) {
  breakout::UniqueHandle h(::CreateFileW(file.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                         nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
  std::string got(kMaxRead, '\0');
  DWORD n = 0;
  if (!h || !::ReadFile(h.get(), got.data(), static_cast<DWORD>(got.size()), &n, nullptr)) return "";
  got.resize(n);
  return got;
}

// The grandchild's report: written whole, as its last act.
bool write_report(const std::wstring& file, const std::string& line) {
  breakout::UniqueHandle h(::CreateFileW(file.c_str(), GENERIC_WRITE, FILE_SHARE_READ, nullptr, CREATE_ALWAYS,
                                         FILE_ATTRIBUTE_NORMAL, nullptr));
  DWORD done = 0;
  return h && ::WriteFile(h.get(), line.data(), static_cast<DWORD>(line.size()), &done, nullptr) && done == line.size();
}

// The grandchild's report file in the probe's cwd (an absolute path: a WMI grandchild starts in
// the provider host's directory), removed on every path.
class ReportFile {
 public:
  ReportFile() {
    std::wstring cwd(32768, L'\0');
    cwd.resize(::GetCurrentDirectoryW(static_cast<DWORD>(cwd.size()), cwd.data()));
    if (!cwd.empty() && cwd.back() != L'\\') cwd += L'\\';
    path_ = cwd + L"breakout-launch-" + std::to_wstring(::GetCurrentProcessId()) + L".report";
    ::DeleteFileW(path_.c_str());
  }
  ~ReportFile() { ::DeleteFileW(path_.c_str()); }
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;
  const std::wstring& path() const { return path_; }
  bool complete() const { return read_bounded(path_).find('\n') != std::string::npos; }

 private:
  std::wstring path_;
};

// --launch: the connect is the grandchild's; this reports how it was started and what it said.
int relay(ProbeReport& r, const std::string& launch, const std::string& spec, const std::string& nonce, bool via_proxy) {
  r.set("launch", launch);
  ReportFile file;
  std::vector<std::string> args = {"--target", spec, "--nonce", nonce};
  if (via_proxy) args.push_back("--via-proxy");
  args.insert(args.end(), {"--report-to", utf8(file.path())});
  const Relaunch g = relaunch_self(launch, self_path(), args, [&file] { return file.complete(); }, kGrandchildWaitMs);
  r.set("launch_state", g.state);
  r.set("launch_reason", g.detail);
  if (g.pid != 0) r.set("grandchild_pid", static_cast<unsigned long long>(g.pid));
  if (g.state != "started") {
    r.fail(g.step, g.state == "unavailable" ? ENOSYS : EACCES);
    r.emit();
    return r.exit_code();
  }
  r.set("grandchild_finished", g.finished);
  r.set("grandchild_killed", g.killed);
  if (g.have_exit_code) r.set("grandchild_exit_code", static_cast<unsigned long long>(g.exit_code));
  r.set("waited_ms", g.waited_ms);
  std::string got = read_bounded(file.path());
  if (got.rfind("BREAKOUT-REPORT ", 0) == 0) got.erase(0, 16);
  while (!got.empty() && (got.back() == '\n' || got.back() == '\r')) got.pop_back();
  r.set("grandchild_report", got);
  if (got.empty()) {
    r.fail("grandchild-report", ENOENT);
    r.set_detail("the grandchild left no report within " + std::to_string(kGrandchildWaitMs / 1000) + " s");
  } else if (got.find("\"ok\":true") != std::string::npos) {
    r.succeed();
  } else {
    r.fail("grandchild", EIO);
    r.set_detail("the grandchild's attempt failed (grandchild_report)");
  }
  r.emit();
  return r.exit_code();
}

// The grandchild's standard handles: whatever a launcher gave it (Wine's wbemprox and
// ShellExecuteExW start it without STARTF_USESTDHANDLES, so it would get the probe's, the
// spawner's pipes) is closed, so no pipe of the spawner waits on it.
void drop_standard_handles() {
  for (DWORD which : {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE}) {
    const HANDLE h = ::GetStdHandle(which);
    if (h != nullptr && h != INVALID_HANDLE_VALUE) ::CloseHandle(h);
    ::SetStdHandle(which, nullptr);
  }
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"target", Args::kValue}, {"nonce", Args::kValue}, {"via-proxy", Args::kFlag}, {"witness", Args::kValue},
             {"launch", Args::kValue}, {"report-to", Args::kValue}});
  const std::string spec = args.require("target");
  const std::string nonce = args.require("nonce");
  const bool via_proxy = args.has("via-proxy");
  const std::string launch = args.get("launch").value_or("direct");
  if (launch != "direct" && !is_launch_path(launch)) args.usage_error("unknown --launch '" + launch + "'");
  if (launch != "direct" && args.has("report-to")) args.usage_error("--report-to is the grandchild's, without --launch");
  std::wstring report_to;
  try {
    if (auto f = args.get("report-to")) report_to = wide(*f);
  } catch (const std::exception& e) {
    args.usage_error(std::string("--report-to is not WTF-8: ") + e.what());
  }
  if (nonce.empty() || nonce.size() > 256) args.usage_error("--nonce must be 1..256 characters");
  for (char ch : nonce)
    if (ch <= ' ' || ch > '~') args.usage_error("--nonce must be printable ASCII without spaces");
  const std::optional<NetTarget> target = parse_net_target(spec);
  if (!target || target->proto == "unix") args.usage_error("--target must be tcp:ADDR:PORT, udp:ADDR:PORT or http[s]://ADDR[:PORT] on Windows");
  const bool udp = target->proto == "udp";
  start_watchdog(std::chrono::seconds(15));  // hard bound, like alarm(15) in the POSIX probe
  if (!report_to.empty()) drop_standard_handles();

  ProbeReport r("net-connect");
  if (auto w = args.get("witness")) r.witness_to(*w);
  r.set("target", spec);
  if (launch != "direct") return relay(r, launch, spec, nonce, via_proxy);
  // The grandchild (--report-to) reports to its file only; everyone else on stdout.
  const auto finish = [&report_to](const ProbeReport& rep) {
    if (report_to.empty()) rep.emit();
    else write_report(report_to, rep.line());
    return rep.exit_code();
  };
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
      return finish(r);
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
    return finish(r);
  }
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM;
  AddrInfo ai;
  if (const int rc = ::getaddrinfo(connect_host.c_str(), connect_port.c_str(), &hints, &ai.ai); rc != 0 || !ai.ai) {
    fail_win32(r, proxy.var.empty() ? "getaddrinfo" : "resolve-proxy (numeric addresses only)", static_cast<DWORD>(rc));
    return finish(r);
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
  return finish(r);
}
