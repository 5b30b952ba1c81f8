// breakout-probe-net-listen: listens inside the sandbox and waits for the host to connect in
// (class net-inbound; the harness's own connect decides, harness/classes/net/inbound.cc).
//
//   breakout-probe-net-listen --target SPEC --nonce N --mark FILE [--wait-ms MS] [--witness PATH]
//
// SPEC is the harness endpoint the attempt names, and says where to listen: tcp:HOST:PORT on HOST
// with a port the kernel picks (a loopback listener: reachable from the host only when the sandbox
// shares its network namespace), unix:PATH on PATH + ".in" (a path socket in the workspace: the
// control, reachable through the workspace's bind). Once listening, the probe writes
// "tcp:HOST:PORT\n" or "unix:PATH\n" to FILE (through a rename, so no half line is read) and waits
// up to MS (default 3000) for one connection, to which it sends "BREAKOUT-NONCE N\n".
// Result: ok=true when a peer connected and got the line; listen_address; errno of the failing
// step otherwise (socket, bind and listen refused by a seccomp filter: EPERM/EACCES).
// Bounds: one connection, a 15 s alarm over everything. Exit: 0 ok, 1 failed attempt, 64 usage error.
// POSIX only (Linux).
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include <arpa/inet.h>
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
    "usage: breakout-probe-net-listen --target tcp:HOST:PORT|unix:PATH --nonce N --mark FILE [--wait-ms MS]\n"
    "  --witness PATH: also leave the report line at PATH (the harness's in-run witness)\n";

// Closes the socket and removes a path socket on every way out.
struct Listener {
  int fd = -1;
  std::string unix_path;
  ~Listener() {
    if (fd >= 0) ::close(fd);
    if (!unix_path.empty()) ::unlink(unix_path.c_str());
  }
};

// Binds and listens; the address written to the mark, or "" with *step set and errno.
std::string listen_on(const NetTarget& t, Listener* l, std::string* step) {
  auto failed = [&](const char* at, int e = 0) {
    *step = at;
    if (e) errno = e;
    return std::string();
  };
  sockaddr_storage ss{};
  socklen_t len = 0;
  int family = AF_UNIX;
  if (t.proto == "unix") {
    auto* su = reinterpret_cast<sockaddr_un*>(&ss);
    const std::string path = t.path + ".in";
    if (path.size() >= sizeof su->sun_path) return failed("address", ENAMETOOLONG);
    su->sun_family = AF_UNIX;
    std::memcpy(su->sun_path, path.c_str(), path.size() + 1);
    len = sizeof *su;
    ::unlink(path.c_str());
  } else if (t.host.find(':') != std::string::npos) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    family = s6->sin6_family = AF_INET6;
    if (::inet_pton(AF_INET6, t.host.c_str(), &s6->sin6_addr) != 1) return failed("address", EINVAL);
    len = sizeof *s6;
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    family = s4->sin_family = AF_INET;
    if (::inet_pton(AF_INET, t.host.c_str(), &s4->sin_addr) != 1) return failed("address", EINVAL);
    len = sizeof *s4;
  }
  l->fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l->fd < 0) return failed("socket");
  if (::bind(l->fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) return failed("bind");
  if (t.proto == "unix") l->unix_path = reinterpret_cast<sockaddr_un*>(&ss)->sun_path;
  if (::listen(l->fd, 1) != 0) return failed("listen");
  if (t.proto == "unix") return "unix:" + l->unix_path;
  socklen_t got = sizeof ss;
  if (::getsockname(l->fd, reinterpret_cast<sockaddr*>(&ss), &got) != 0) return failed("getsockname");
  const int port = family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                      : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return "tcp:" + bracket(t.host) + ":" + std::to_string(port);
}

// The mark through a rename: the harness polls for it while the probe runs.
int write_mark(const std::string& mark, const std::string& line) {
  const std::string tmp = mark + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return errno;
  const bool ok = std::fputs(line.c_str(), f) >= 0;
  if (std::fclose(f) != 0 || !ok) return errno ? errno : EIO;
  return std::rename(tmp.c_str(), mark.c_str()) == 0 ? 0 : errno;
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage,
            {{"target", Args::kValue}, {"nonce", Args::kValue}, {"mark", Args::kValue}, {"wait-ms", Args::kValue},
             {"witness", Args::kValue}});
  const std::string spec = args.require("target");
  const std::string nonce = args.require("nonce");
  const std::string mark = args.require("mark");
  const auto target = parse_net_target(spec);
  if (!target || (target->proto != "tcp" && target->proto != "unix")) args.usage_error("bad --target '" + spec + "'");
  if (nonce.empty() || nonce.size() > 256) args.usage_error("--nonce must be 1..256 characters");
  const int wait_ms = args.has("wait-ms") ? std::atoi(args.get("wait-ms")->c_str()) : 3000;
  if (wait_ms <= 0 || wait_ms > 10000) args.usage_error("--wait-ms must be 1..10000");

  ::alarm(15);
  ::signal(SIGPIPE, SIG_IGN);
  ProbeReport r("net-listen");
  if (auto w = args.get("witness")) r.witness_to(*w);
  r.set("target", spec);
  Listener l;
  std::string step;
  const std::string address = listen_on(*target, &l, &step);
  if (address.empty()) {
    r.fail(step, errno);
    r.emit();
    return r.exit_code();
  }
  r.set("listen_address", address);
  if (int e = write_mark(mark, address + "\n")) {
    r.fail("mark", e);
    r.emit();
    return r.exit_code();
  }
  pollfd p{l.fd, POLLIN, 0};
  const std::int64_t deadline = now_ms() + wait_ms;
  int n = 0;
  while ((n = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, deadline - now_ms())))) < 0 && errno == EINTR) {
  }
  if (n <= 0) {
    r.fail("accept", n == 0 ? ETIMEDOUT : errno);
    r.emit();
    return r.exit_code();
  }
  const int c = ::accept4(l.fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (c < 0) {
    r.fail("accept", errno);
  } else {
    const std::string line = "BREAKOUT-NONCE " + nonce + "\n";
    if (int e = write_all(c, line.data(), line.size())) r.fail("send", e);
    else r.succeed();
    ::shutdown(c, SHUT_WR);
    ::close(c);
  }
  r.emit();
  return r.exit_code();
}
