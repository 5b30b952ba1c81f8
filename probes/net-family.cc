// breakout-probe-net-family: socket families besides TCP/UDP/unix (class net-family).
//
//   --target icmp:ADDR       an ICMP echo request to IPv4 ADDR whose payload is "BREAKOUT-NONCE <nonce>":
//                            a ping socket (SOCK_DGRAM, IPPROTO_ICMP) first, a raw socket when that
//                            cannot send; then waits up to 500 ms for the matching echo reply
//   --target own:icmp        the control: the same echo request to 127.0.0.1 in the probe's own
//                            network namespace; prints own_token(nonce) once the reply came back
//   --target link:NAME       NETLINK_ROUTE RTM_SETLINK of interface NAME (by name: the kernel looks it
//                            up in the probe's own network namespace) setting IFLA_IFALIAS to the nonce line
//   --target own:netlink     the control: an RTM_GETLINK dump of the probe's own namespace (what
//                            getifaddrs(3) asks); prints own_token(nonce) when at least one link came back
//   --target vsock:CID:PORT  AF_VSOCK connect (1 s) and the nonce line; only to VMADDR_CID_LOCAL (1), and
//                            only after a bind(2) to CID 1 shows a loopback transport: without one a
//                            connect to CID 1 would leave for the hypervisor
//   --target own:vsock       the control: its own listener on CID 1, connected from itself; prints
//                            own_token(nonce) after reading the nonce line back
//   --nonce N
//
// The report is evidence only: the harness's reader, link or listener decides. Exit 0 ok, 1 failed, 64 usage.
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/vm_sockets.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/report.h"

namespace {

using breakout::probe::ProbeReport;

constexpr const char* kUsage =
    "usage: breakout-probe-net-family --target icmp:ADDR|own:icmp|link:NAME|own:netlink|vsock:CID:PORT|own:vsock "
    "--nonce N\n";

struct Fd {
  int fd = -1;
  explicit Fd(int f = -1) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::uint16_t checksum(const unsigned char* p, std::size_t n) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < n; i += 2) sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  if (n & 1) sum += static_cast<std::uint32_t>(p[n - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return htons(static_cast<std::uint16_t>(~sum));
}

// ICMP echo: returns true when the echo reply carrying `line` came back. Fills the report.
bool ping(const std::string& addr, const std::string& line, ProbeReport& rep) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  if (::inet_pton(AF_INET, addr.c_str(), &to.sin_addr) != 1) {
    rep.fail("inet_pton", EINVAL);
    return false;
  }
  std::vector<unsigned char> pkt(8 + line.size());
  pkt[0] = ICMP_ECHO;
  pkt[4] = 0x42;  // identifier (the kernel replaces it on a ping socket)
  pkt[7] = 1;     // sequence
  std::memcpy(pkt.data() + 8, line.data(), line.size());
  const std::uint16_t sum = checksum(pkt.data(), pkt.size());
  std::memcpy(pkt.data() + 2, &sum, 2);
  Fd fd;
  std::string kind;
  int dgram_errno = 0;
  for (int type : {SOCK_DGRAM, SOCK_RAW}) {
    Fd s(::socket(AF_INET, type | SOCK_CLOEXEC, IPPROTO_ICMP));
    const char* name = type == SOCK_DGRAM ? "ping socket" : "raw socket";
    if (s.fd < 0 || ::sendto(s.fd, pkt.data(), pkt.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) {
      if (type == SOCK_DGRAM) dgram_errno = errno;
      rep.fail(std::string(s.fd < 0 ? "socket " : "sendto ") + name, errno);
      continue;
    }
    kind = name;
    std::swap(fd.fd, s.fd);
    break;
  }
  if (dgram_errno) rep.set("ping_socket_errno", breakout::probe::errno_name(dgram_errno));
  if (fd.fd < 0) return false;
  rep.set("sent_with", kind);
  rep.succeed();  // sent; the reply is evidence only
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  unsigned char buf[2048];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd.fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd.fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    std::size_t off = 0;
    if (kind == "raw socket") off = (buf[0] & 0x0f) * 4u;  // a raw socket reads the IP header too
    if (static_cast<std::size_t>(n) < off + 8 || buf[off] != ICMP_ECHOREPLY) continue;  // our own request, others
    const std::string payload(reinterpret_cast<char*>(buf) + off + 8, static_cast<std::size_t>(n) - off - 8);
    if (payload.find(line) != std::string::npos) {
      rep.set("echo_reply", true);
      return true;
    }
  }
  rep.set("echo_reply", false);
  return false;
}

// One NETLINK_ROUTE request; returns the ack's errno (0 ok), or counts RTM_NEWLINK answers of a dump.
int rtnl(std::vector<char> req, bool dump, int* links) {
  Fd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (fd.fd < 0) return errno;
  timeval tv{1, 0};
  ::setsockopt(fd.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  reinterpret_cast<nlmsghdr*>(req.data())->nlmsg_len = static_cast<std::uint32_t>(req.size());
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd.fd, req.data(), req.size(), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0) return errno;
  alignas(nlmsghdr) char buf[16384];
  for (int rounds = 0; rounds < 64; ++rounds) {  // bounded: a dump of a few hundred links at most
    const ssize_t n = ::recv(fd.fd, buf, sizeof buf, 0);
    if (n < 0) return errno;
    const auto len = static_cast<std::size_t>(n);
    for (std::size_t off = 0; off + sizeof(nlmsghdr) <= len;) {
      const auto* h = reinterpret_cast<const nlmsghdr*>(buf + off);
      if (h->nlmsg_len < sizeof(nlmsghdr) || h->nlmsg_len > len - off) break;
      if (h->nlmsg_type == NLMSG_ERROR) return -reinterpret_cast<const nlmsgerr*>(NLMSG_DATA(h))->error;
      if (h->nlmsg_type == NLMSG_DONE) return 0;
      if (h->nlmsg_type == RTM_NEWLINK && links) ++*links;
      off += NLMSG_ALIGN(h->nlmsg_len);
    }
    if (!dump) return EPROTO;
  }
  return EPROTO;
}

std::vector<char> link_request(std::uint16_t type, std::uint16_t flags) {
  std::vector<char> m(NLMSG_SPACE(sizeof(ifinfomsg)), 0);
  auto* h = reinterpret_cast<nlmsghdr*>(m.data());
  h->nlmsg_type = type;
  h->nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
  h->nlmsg_seq = 1;
  reinterpret_cast<ifinfomsg*>(NLMSG_DATA(h))->ifi_family = AF_UNSPEC;
  return m;
}

void add_attr(std::vector<char>& m, std::uint16_t type, const std::string& s) {
  m.resize(NLMSG_ALIGN(m.size()), 0);
  rtattr a{static_cast<unsigned short>(RTA_LENGTH(s.size() + 1)), type};
  const auto* p = reinterpret_cast<const char*>(&a);
  m.insert(m.end(), p, p + sizeof a);
  m.insert(m.end(), s.c_str(), s.c_str() + s.size() + 1);
  m.resize(NLMSG_ALIGN(m.size()), 0);
}

// A vsock socket bound to CID 1 shows a loopback transport; without one nothing is connected.
int vsock_loopback_errno() {
  Fd s(::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (s.fd < 0) return errno;
  sockaddr_vm a{};
  a.svm_family = AF_VSOCK;
  a.svm_cid = VMADDR_CID_LOCAL;
  a.svm_port = VMADDR_PORT_ANY;
  return ::bind(s.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 ? 0 : errno;
}

bool vsock_send(unsigned port, const std::string& line, ProbeReport& rep) {
  Fd s(::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (s.fd < 0) {
    rep.fail("socket AF_VSOCK", errno);
    return false;
  }
  timeval tv{1, 0};  // SO_VM_SOCKETS_CONNECT_TIMEOUT's default is 2 s; keep it short
#ifdef SO_VM_SOCKETS_CONNECT_TIMEOUT_OLD
  ::setsockopt(s.fd, AF_VSOCK, SO_VM_SOCKETS_CONNECT_TIMEOUT_OLD, &tv, sizeof tv);
#else
  ::setsockopt(s.fd, AF_VSOCK, SO_VM_SOCKETS_CONNECT_TIMEOUT, &tv, sizeof tv);
#endif
  sockaddr_vm a{};
  a.svm_family = AF_VSOCK;
  a.svm_cid = VMADDR_CID_LOCAL;
  a.svm_port = port;
  if (::connect(s.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    rep.fail("connect AF_VSOCK", errno);
    return false;
  }
  if (::send(s.fd, line.data(), line.size(), MSG_NOSIGNAL) < 0) {
    rep.fail("send AF_VSOCK", errno);
    return false;
  }
  rep.succeed();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace breakout::probe;
  Args args(argc, argv, kUsage, {{"target", Args::kValue}, {"nonce", Args::kValue}, {"witness", Args::kValue}});
  const std::string target = args.require("target"), nonce = args.require("nonce");
  const std::string line = "BREAKOUT-NONCE " + nonce + "\n";
  ProbeReport rep("net-family");
  if (auto w = args.get("witness")) rep.witness_to(*w);  // the in-run witness (harness/attempt/witness.h)
  rep.set("target", target);
  bool own_ok = false;
  if (target.rfind("icmp:", 0) == 0) {
    ping(target.substr(5), line, rep);
  } else if (target == "own:icmp") {
    own_ok = ping("127.0.0.1", line, rep);
  } else if (target.rfind("link:", 0) == 0) {
    auto req = link_request(RTM_SETLINK, NLM_F_ACK);
    add_attr(req, IFLA_IFNAME, target.substr(5));
    add_attr(req, IFLA_IFALIAS, line.substr(0, line.size() - 1));
    if (const int e = rtnl(req, false, nullptr); e != 0) rep.fail("RTM_SETLINK IFLA_IFALIAS", e);
    else rep.succeed();
  } else if (target == "own:netlink") {
    int links = 0;
    const int e = rtnl(link_request(RTM_GETLINK, NLM_F_DUMP), true, &links);
    rep.set("links", links);
    if (e != 0) rep.fail("RTM_GETLINK dump", e);
    else rep.succeed();
    own_ok = e == 0 && links > 0;
  } else if (target.rfind("vsock:", 0) == 0 || target == "own:vsock") {
    if (const int e = vsock_loopback_errno(); e != 0) {
      rep.fail("bind AF_VSOCK VMADDR_CID_LOCAL (no loopback transport: nothing is connected)", e);
    } else if (target == "own:vsock") {
      Fd l(::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0));
      sockaddr_vm a{};
      a.svm_family = AF_VSOCK;
      a.svm_cid = VMADDR_CID_LOCAL;
      a.svm_port = VMADDR_PORT_ANY;
      socklen_t len = sizeof a;
      if (l.fd < 0 || ::bind(l.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(l.fd, 1) != 0 ||
          ::getsockname(l.fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        rep.fail("own vsock listener", errno);
      } else if (vsock_send(a.svm_port, line, rep)) {
        pollfd p{l.fd, POLLIN, 0};
        Fd c(::poll(&p, 1, 1000) > 0 ? ::accept(l.fd, nullptr, nullptr) : -1);
        char buf[256] = {};
        const ssize_t n = c.fd >= 0 ? ::read(c.fd, buf, sizeof buf - 1) : -1;
        own_ok = n > 0 && std::string(buf, static_cast<std::size_t>(n)) == line;
      }
    } else {
      const std::string rest = target.substr(6);
      const auto colon = rest.find(':');
      if (colon == std::string::npos || rest.substr(0, colon) != "1")
        args.usage_error("--target vsock: takes only CID 1 (VMADDR_CID_LOCAL): vsock:1:PORT");
      vsock_send(static_cast<unsigned>(std::stoul(rest.substr(colon + 1))), line, rep);
    }
  } else {
    args.usage_error("unknown --target " + target);
  }
  if (own_ok) std::printf("%s\n", breakout::own_token(nonce).c_str());
  rep.set("own_token_printed", own_ok);
  std::fflush(stdout);
  rep.emit();
  return rep.exit_code();
}
