// breakout-probe-net-connect: tries to deliver a nonce to a network endpoint.
//
//   breakout-probe-net-connect --target SPEC --nonce N [--via-proxy | --route ROUTE]
//
// SPEC:
//   tcp:HOST:PORT      stream connect; HOST a name, an IPv4 address or [IPv6]
//   udp:HOST:PORT      datagram, sent 3 times 50 ms apart (cheap insurance)
//   unix:/path         stream connect to a path socket; unix:@name = abstract
//   env-unix:NAME      the path socket named by environment variable NAME, the
//                      way ssh(1) finds its agent through SSH_AUTH_SOCK; unset or
//                      empty fails at step "env" (ENOENT) with env_unset=true
//   http://HOST[:PORT][/...], https://HOST[:PORT][/...]
//                      a TCP target with a URL scheme (matters for --via-proxy only)
// N: the attempt's nonce, printable ASCII without spaces. The probe sends
//   "BREAKOUT-NONCE <N>\n"; the harness's listener decides whether it arrived.
// --via-proxy: for TCP targets, pick a proxy like curl does (probes/common/proxy_target.h): scheme http uses
//   lower-case http_proxy only (curl ignores HTTP_PROXY: httpoxy); every other
//   scheme https_proxy, then HTTPS_PROXY; then all_proxy, ALL_PROXY. no_proxy
//   (else NO_PROXY), a comma list of exact host names or "*", bypasses it.
//   Proxy values are [http://][user[:password]@]host[:port] (default port 1080, like
//   curl). Through a proxy the probe sends "CONNECT host:port HTTP/1.1", Host,
//   Proxy-Authorization Basic from the URL's percent-decoded userinfo when it has
//   one (curl does; srt's proxy answers 407 without it), "X-Breakout-Nonce: N", a
//   blank line, then the nonce line into the tunnel, and reports the proxy's status
//   line. Credentials are reported only masked (proxy_auth, proxy_credentials).
// --route ROUTE: how a TCP target is reached (network = "proxy", class proxy-connect):
//   direct    no proxy, whatever the environment says
//   connect   the same as --via-proxy
//   absolute  plain HTTP through the proxy curl would use for http://HOST:PORT (http_proxy,
//             then all_proxy, ALL_PROXY): "GET http://HOST:PORT/breakout HTTP/1.1" with the
//             header "X-Breakout: BREAKOUT-NONCE N", which the proxy forwards to the target
//   socks5    SOCKS5 (RFC 1928) to all_proxy, else ALL_PROXY (socks5://, socks5h://, http://
//             or no scheme: srt serves SOCKS and HTTP on one port), user/password (RFC 1929)
//             from the URL when it has one, CONNECT to the target, then the nonce line;
//             socks_reply is the REP field (0 = succeeded)
//   With no proxy variable set, every route connects directly, as curl does.
// --alias symlink|hardlink: for a path socket, connect through another name for it the probe
//   makes in its cwd (removed after). Reported as alias and alias_path; step "alias".
// --alias proc-root --root-pid PID|self: connect to /proc/PID/root/<the socket's absolute path>,
//   the path resolved below PID's root directory (proc(5)), which for a host process is the
//   host's, whatever mounts the sandbox made; the harness passes its own pid, or self for the
//   control (the probe's own root). Nothing is made; alias_path is that path.
// --spell FORM [--decoy HOST:PORT]: how the destination is written to the proxy (proxy_target.h
//   spell_destination: decimal, octal, hex, mapped6; with an absolute URI and the decoy the proxy
//   admits, host-header, uri-host, userinfo); a direct connect goes to the target as given.
//   With --name, the name forms trailing-dot, mixed-case and nul-suffix (--decoy DOMAIN: the
//   allowed domain after the NUL); without a proxy the probe resolves the spelled name itself.
// --name NAME: a tcp target by name (its port kept): the proxy is asked for NAME, or the probe
//   resolves it (network = "proxy" runs resolve through the harness's zone, host/name_server.h).
//
// Result: ok=true when connect and send succeeded from inside (for UDP: at least
// one datagram was sent); errno/errname of the failing step otherwise (resolve,
// socket, connect, send...). ENETUNREACH usually means no network namespace
// route (e.g. --unshare-net), ECONNREFUSED nothing listening or a firewall,
// ETIMEDOUT the 2 s connect timeout. Fields: proto, via ("direct"|"proxy"),
// proxy, proxy_var, proxy_status (HTTP status, 0 if none), proxy_auth,
// proxy_credentials (masked), address, sent, received. Through a proxy, ok says
// only that the proxy took the request.
// Bounds: 2 s connect timeout, name lookups with RES_OPTIONS "timeout:1
// attempts:1" (unless set), and a 15 s alarm over everything.
// Exit: 0 ok, 1 failed attempt, 64 usage error.
//
// POSIX only (Linux).
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "probes/common/args.h"
#include "probes/common/posix.h"
#include "probes/common/proxy_target.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-net-connect --target SPEC --nonce N [--via-proxy | --route direct|connect|absolute|socks5]\n"
    "       [--spell decimal|octal|hex|mapped6|host-header|uri-host|userinfo [--decoy HOST:PORT]]\n"
    "       [--name NAME [--spell trailing-dot|mixed-case|nul-suffix [--decoy DOMAIN]]]\n"
    "       [--alias symlink|hardlink | --alias proc-root --root-pid PID|self]   (path socket targets)\n"
    "  SPEC: tcp:HOST:PORT | udp:HOST:PORT | unix:/path | unix:@abstract | env-unix:NAME | http[s]://HOST[:PORT]\n"
    "  HOST may be [v6-address]\n"
    "  --witness PATH: also leave the report line at PATH (the harness's in-run witness)\n";

constexpr int kConnectTimeoutMs = 2000;

// A spelled destination as a report may carry it: a NUL byte shown as "\\0".
std::string visible_nul(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\0' ? std::string("\\0") : std::string(1, c);
  return out;
}

// The variable's value, "" when unset (getenv: names are case-sensitive, as curl expects).
std::string env_nonempty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// --- sockets ---

// Non-blocking connect bounded by kConnectTimeoutMs. Returns 0 or an errno.
int connect_bounded(int fd, const sockaddr* addr, socklen_t len) {
  if (::connect(fd, addr, len) == 0) return 0;
  if (errno != EINPROGRESS && errno != EINTR) return errno;
  const std::int64_t deadline = now_ms() + kConnectTimeoutMs;
  for (;;) {
    const std::int64_t left = deadline - now_ms();
    if (left <= 0) return ETIMEDOUT;
    pollfd pfd{fd, POLLOUT, 0};
    int n = ::poll(&pfd, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ETIMEDOUT;
    int err = 0;
    socklen_t elen = sizeof err;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0) return errno;
    return err;
  }
}

// Reads what the peer sends for up to `ms` (or until EOF / `cap` bytes).
std::string read_for(int fd, int ms, std::size_t cap, bool stop_at_header_end) {
  std::string got;
  const std::int64_t deadline = now_ms() + ms;
  while (got.size() < cap) {
    const std::int64_t left = deadline - now_ms();
    if (left <= 0) break;
    pollfd pfd{fd, POLLIN, 0};
    int n = ::poll(&pfd, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    char buf[1024];
    ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) break;
    got.append(buf, static_cast<std::size_t>(r));
    if (stop_at_header_end && got.find("\r\n\r\n") != std::string::npos) break;
  }
  return got;
}

std::string numeric_address(const sockaddr* a, socklen_t len) {
  char host[NI_MAXHOST], serv[NI_MAXSERV];
  if (::getnameinfo(a, len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) != 0) return "?";
  return bracket(host) + ":" + serv;
}

struct Connected {
  int fd = -1;
  int err = 0;
  std::string step;
  std::string address;
  std::string detail;  // overrides the report's detail when set
};

// Resolves host:port and connects to the first address that accepts.
Connected connect_inet(const std::string& host, const std::string& port, int socktype) {
  Connected c;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = socktype;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  int gai = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
  if (gai != 0) {
    // getaddrinfo has its own error space: report EHOSTUNREACH (or the real
    // errno for EAI_SYSTEM) and keep its own words in the detail.
    c.step = "resolve";
    c.err = gai == EAI_SYSTEM && errno != 0 ? errno : EHOSTUNREACH;
    c.detail = std::string("resolve ") + host + ": " + ::gai_strerror(gai);
    return c;
  }
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      c.err = errno;
      c.step = "socket";
      continue;
    }
    c.address = numeric_address(ai->ai_addr, ai->ai_addrlen);
    if (int e = connect_bounded(fd, ai->ai_addr, ai->ai_addrlen)) {
      ::close(fd);
      c.err = e;
      c.step = "connect";
      continue;
    }
    c.fd = fd;
    c.err = 0;
    break;
  }
  ::freeaddrinfo(res);
  return c;
}

Connected connect_unix(const std::string& path) {
  Connected c;
  c.address = "unix:" + path;
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  const bool abstract = path[0] == '@';
  if (path.size() >= sizeof sa.sun_path) {
    c.err = ENAMETOOLONG;
    c.step = "address";
    return c;
  }
  std::memcpy(sa.sun_path, path.data(), path.size());
  if (abstract) sa.sun_path[0] = '\0';
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + (abstract ? 0 : 1));
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    c.err = errno;
    c.step = "socket";
    return c;
  }
  if (int e = connect_bounded(fd, reinterpret_cast<sockaddr*>(&sa), len)) {
    ::close(fd);
    c.err = e;
    c.step = "connect";
    return c;
  }
  c.fd = fd;
  return c;
}

// SOCKS5 through `fd` (connected to the proxy): greeting, optional RFC 1929 login, CONNECT.
// 0 when the tunnel stands; otherwise the errno for the report, with the step in *step.
int socks5_handshake(int fd, const ProxyChoice& proxy, const NetTarget& target, const ProxyAsk& ask, ProbeReport& r,
                     std::string* step) {
  auto exchange = [&](const std::string& out, std::size_t want, std::string* in) {
    if (int e = write_all(fd, out.data(), out.size())) return e;
    *in = read_for(fd, 2000, want, false);
    return in->size() >= want ? 0 : ECONNRESET;
  };
  std::string in;
  *step = "socks-greeting";
  if (int e = exchange(socks5_greeting(proxy), 2, &in)) return e;
  if (in[0] != '\x05' || static_cast<unsigned char>(in[1]) == 0xff) return EPROTO;
  if (in[1] == '\x02') {
    *step = "socks-auth";
    const std::string auth = socks5_auth(proxy);
    if (auth.empty()) return EINVAL;
    if (int e = exchange(auth, 2, &in)) return e;
    if (in[1] != '\x00') return EACCES;
  } else if (in[1] != '\x00') {
    return EPROTO;
  }
  *step = "socks-connect";
  const std::string request = socks5_connect(ask.socks_host, target.port);
  if (request.empty()) return EINVAL;
  if (int e = exchange(request, 10, &in)) return e;
  const int rep = socks5_reply_code(in);
  r.set("socks_reply", rep);
  return rep == 0 ? 0 : ECONNREFUSED;
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage,
            {{"target", Args::kValue}, {"nonce", Args::kValue}, {"via-proxy", Args::kFlag}, {"route", Args::kValue},
             {"witness", Args::kValue}, {"spell", Args::kValue}, {"decoy", Args::kValue},
             {"alias", Args::kValue}, {"root-pid", Args::kValue}, {"name", Args::kValue}});
  const std::string spec = args.require("target");
  const std::string nonce = args.require("nonce");
  const std::string route = args.has("route") ? *args.get("route") : args.has("via-proxy") ? "connect" : "direct";
  if (route != "direct" && route != "connect" && route != "absolute" && route != "socks5")
    args.usage_error("bad --route '" + route + "'");
  if (args.has("route") && args.has("via-proxy")) args.usage_error("--via-proxy is --route connect: give one");
  const bool via_proxy = route != "direct";
  const bool from_env = spec.rfind("env-unix:", 0) == 0;
  const std::string env_name = from_env ? spec.substr(9) : "";
  if (from_env && env_name.empty()) args.usage_error("bad --target '" + spec + "'");
  const std::string env_path = from_env ? env_nonempty(env_name.c_str()) : "";
  auto target = parse_net_target(from_env ? "unix:" + (env_path.empty() ? "-" : env_path) : spec);
  if (!target) args.usage_error("bad --target '" + spec + "'");
  // --name: the destination by name in the run's zone (the target's port kept): what the proxy
  // is asked for, or what the probe resolves itself when it has no proxy.
  const std::string name = args.has("name") ? *args.get("name") : "";
  if (args.has("name")) {
    if (target->proto != "tcp") args.usage_error("--name needs a tcp target");
    if (name.empty() || name.size() > 253) args.usage_error("--name must be 1..253 characters");
    for (char ch : name)
      if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-'))
        args.usage_error("--name takes letters, digits, '.' and '-' only");
    target->host = name;
  }
  const std::string spelling = args.has("spell") ? *args.get("spell") : "";
  const std::string decoy = args.has("decoy") ? *args.get("decoy") : "";
  if (!spelling.empty() && route == "direct") args.usage_error("--spell needs a proxy route");
  if (spelling_needs_absolute(spelling) && route != "absolute") args.usage_error("--spell " + spelling + " needs --route absolute");
  const auto ask = spell_destination(*target, spelling, decoy);
  if (!ask) args.usage_error("--spell '" + spelling + "' does not apply to --target '" + spec + "' (--decoy '" + decoy + "')");
  const std::string alias = args.has("alias") ? *args.get("alias") : "";
  if (!alias.empty() && alias != "symlink" && alias != "hardlink" && alias != "proc-root")
    args.usage_error("bad --alias '" + alias + "'");
  if (!alias.empty() && (target->proto != "unix" || target->path.empty() || target->path[0] != '/'))
    args.usage_error("--alias needs a path socket target");
  const std::string root_pid = args.has("root-pid") ? *args.get("root-pid") : "";
  if ((alias == "proc-root") != !root_pid.empty()) args.usage_error("--root-pid goes with --alias proc-root, and only there");
  if (!root_pid.empty() && root_pid != "self" &&
      (root_pid.size() > 10 || root_pid.find_first_not_of("0123456789") != std::string::npos))
    args.usage_error("--root-pid takes a process id or 'self'");
  if (nonce.empty() || nonce.size() > 256) args.usage_error("--nonce must be 1..256 characters");
  for (char ch : nonce)
    if (ch <= ' ' || ch > '~') args.usage_error("--nonce must be printable ASCII without spaces");

  ::alarm(15);  // hard bound over everything, DNS included
  ::signal(SIGPIPE, SIG_IGN);
  ::setenv("RES_OPTIONS", "timeout:1 attempts:1", 0);  // bounded lookups unless told otherwise

  ProbeReport r("net-connect");
  if (auto w = args.get("witness")) r.witness_to(*w);
  r.set("target", spec);
  r.set("proto", target->proto);
  if (!name.empty()) r.set("name", name);
  r.set("via", "direct");
  if (from_env && env_path.empty()) {  // nothing advertised the socket: nothing to connect to
    r.set("env_unset", true);
    r.fail("env", ENOENT);
    r.emit();
    return r.exit_code();
  }

  const std::string nonce_line = "BREAKOUT-NONCE " + nonce + "\n";
  std::string payload = nonce_line;
  ProxyChoice proxy;
  NetTarget proxied = *target;  // what the proxy is asked for; absolute: an http:// URL
  if (route == "absolute") proxied.scheme = "http";
  if (via_proxy && target->proto == "tcp") {
    proxy = route == "socks5" ? pick_socks_proxy(proxied, &env_nonempty) : pick_proxy(proxied, &env_nonempty);
    if (proxy.no_proxy_matched) r.set("no_proxy_matched", true);
  } else if (via_proxy) {
    r.set("detail", "no proxy for " + target->proto + " targets");
  }
  if (!proxy.var.empty()) {
    r.set("via", route == "socks5" ? "socks5" : "proxy");
    r.set("route", route);
    r.set("proxy_var", proxy.var);
    if (!proxy.parsed) {
      r.fail(route == "socks5" ? "proxy-url (socks5://, socks5h:// or http:// only)"
                               : "proxy-url (only http:// proxies are spoken)",
             EPROTONOSUPPORT);
      r.emit();
      return r.exit_code();
    }
    r.set("proxy", bracket(proxy.host) + ":" + proxy.port);
    if (proxy.has_credentials) {
      r.set("proxy_auth", "basic");
      r.set("proxy_credentials", masked_credentials(proxy));
    }
    if (!spelling.empty()) r.set("spelled_as", visible_nul(route == "socks5" ? ask->socks_host : ask->authority));
    if (route == "absolute") payload = absolute_request(*ask, proxy, nonce);
    else if (route == "connect") payload = connect_request(*ask, proxy, nonce);  // the nonce after its 200
  }

  Connected c;
  std::string alias_name;  // the second name the probe made for the socket, removed after the connect
  if (alias == "proc-root") {  // nothing to make: the kernel's magic link is the second name
    r.set("alias", alias);
    alias_name = "/proc/" + root_pid + "/root" + target->path;
    r.set("alias_path", alias_name);
  } else if (!alias.empty()) {
    r.set("alias", alias);
    alias_name = "alias-" + nonce.substr(0, 8);
    r.set("alias_path", alias_name);
    const int rc = alias == "symlink" ? ::symlink(target->path.c_str(), alias_name.c_str())
                                      : ::link(target->path.c_str(), alias_name.c_str());
    if (rc != 0) {
      r.fail("alias", errno);
      r.emit();
      return r.exit_code();
    }
  }
  if (!alias_name.empty()) {
    c = connect_unix(alias_name);
    if (alias != "proc-root") ::unlink(alias_name.c_str());
  } else if (target->proto == "unix") {
    c = connect_unix(target->path);
  } else if (!proxy.var.empty()) {
    c = connect_inet(proxy.host, proxy.port, SOCK_STREAM);
  } else {
    // No proxy: the probe resolves a spelled name itself; getaddrinfo reads it up to a NUL.
    const std::string host = spelling_is_name_form(spelling) ? ask->socks_host : target->host;
    c = connect_inet(host, target->port, target->proto == "udp" ? SOCK_DGRAM : SOCK_STREAM);
  }
  if (!c.address.empty()) r.set("address", c.address);
  if (c.fd >= 0 && route == "socks5" && !proxy.var.empty()) {
    std::string step;
    if (int e = socks5_handshake(c.fd, proxy, *target, *ask, r, &step)) {
      ::close(c.fd);
      c.fd = -1;
      c.err = e;
      c.step = step;
    }
  }
  if (c.fd < 0) {
    r.fail(c.step, c.err);
    if (!c.detail.empty()) r.set_detail(c.detail);
    r.emit();
    return r.exit_code();
  }

  if (target->proto == "udp") {
    int sent_ok = 0, last_err = 0;
    for (int i = 0; i < 3; ++i) {
      if (i > 0) sleep_ms(50);
      if (::send(c.fd, payload.data(), payload.size(), 0) == static_cast<ssize_t>(payload.size())) {
        ++sent_ok;
      } else {
        last_err = errno;  // e.g. ECONNREFUSED from an earlier ICMP port unreachable
      }
    }
    r.set("datagrams_sent", sent_ok);
    if (last_err) r.set("send_error", errno_name(last_err));
    if (sent_ok > 0) {
      r.succeed();
      r.set("sent", static_cast<unsigned long long>(payload.size()));
    } else {
      r.fail("send", last_err);
    }
  } else if (int e = write_all(c.fd, payload.data(), payload.size())) {
    r.fail("send", e);
  } else {
    r.succeed();
    r.set("sent", static_cast<unsigned long long>(payload.size()));
    std::string got;
    if (!proxy.var.empty() && route == "socks5") {
      // The tunnel stands (socks_reply 0): half-close so the far end reads everything.
      ::shutdown(c.fd, SHUT_WR);
      got = read_for(c.fd, 500, 4096, false);
    } else if (!proxy.var.empty()) {
      // Keep the tunnel open while the proxy answers and forwards the nonce.
      got = read_for(c.fd, 2000, 4096, true);
      int status = 0;
      if (got.rfind("HTTP/", 0) == 0 && got.size() > 12) status = std::atoi(got.c_str() + 9);
      r.set("proxy_status", status);
      r.set("proxy_response", got.substr(0, got.find("\r\n")).substr(0, 200));
      // CONNECT: into the tunnel only once it stands (curl waits for the 2xx too, RFC 9110 9.3.6).
      if (route == "connect" && status >= 200 && status < 300) {
        if (int e = write_all(c.fd, nonce_line.data(), nonce_line.size())) r.set("tunnel_send_error", errno_name(e));
        else r.set("tunnel_sent", static_cast<unsigned long long>(nonce_line.size()));
        ::shutdown(c.fd, SHUT_WR);
      }
      got += read_for(c.fd, 500, 4096, false);
    } else {
      // Half-close and wait briefly, so the listener reads everything before we go.
      ::shutdown(c.fd, SHUT_WR);
      got = read_for(c.fd, 500, 4096, false);
    }
    r.set("received", static_cast<unsigned long long>(got.size()));
  }
  ::close(c.fd);
  r.emit();
  return r.exit_code();
}
