// breakout-probe-dns-query: resolve "<nonce>.breakout.test" with a raw DNS query (class dns-query; RFC 1035).
//
// A name resolved is data leaving the sandbox (DNS tunnelling), even when no
// connection is ever made. The query (RFC 1035 §4.1: header, one question, type
// A, class IN, RD set) goes straight to the resolver named by --target, not
// through resolv.conf, so the attempt does not depend on the host's resolver
// configuration.
//
//   --target udp:<ipv4>:<port>   a UDP resolver (the harness's, on the host's 127.0.0.1)
//   --target unixgram:<path>     a resolver on a unix datagram socket (the workspace control;
//                                no reply possible: our socket is unnamed)
//   --nonce N
//
// Waits up to 1 s for a UDP answer; reports "answered" and the rcode (display
// only: the harness judges by what its resolver saw). Exit 0 sent, 1 failed, 64 usage.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "probes/common/args.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

namespace {

constexpr const char* kUsage = "usage: breakout-probe-dns-query --target udp:IPV4:PORT|unixgram:PATH --nonce N [--witness PATH]\n";

std::vector<unsigned char> query(const std::string& name, unsigned short id) {
  std::vector<unsigned char> q = {static_cast<unsigned char>(id >> 8), static_cast<unsigned char>(id), 0x01, 0x00,
                                  0, 1, 0, 0, 0, 0, 0, 0};  // RD; QDCOUNT 1
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    q.push_back(static_cast<unsigned char>(dot - start));
    q.insert(q.end(), name.begin() + static_cast<long>(start), name.begin() + static_cast<long>(dot));
    start = dot + 1;
  }
  q.push_back(0);
  q.insert(q.end(), {0, 1, 0, 1});  // QTYPE A, QCLASS IN
  return q;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace breakout::probe;
  Args args(argc, argv, kUsage, {{"target", Args::kValue}, {"nonce", Args::kValue}, {"witness", Args::kValue}});
  const std::string target = args.require("target"), nonce = args.require("nonce");
  if (nonce.empty() || nonce.size() > 63) args.usage_error("--nonce must be one DNS label (1..63 bytes)");
  const std::string name = nonce + ".breakout.test";
  ProbeReport rep("dns-query");
  if (auto w = args.get("witness")) rep.witness_to(*w);
  rep.set("target", target);
  rep.set("name", name);
  sockaddr_storage to{};
  socklen_t tolen = 0;
  int family = AF_INET;
  if (target.rfind("udp:", 0) == 0) {
    const std::string rest = target.substr(4);
    const auto colon = rest.rfind(':');
    auto* a = reinterpret_cast<sockaddr_in*>(&to);
    a->sin_family = AF_INET;
    if (colon == std::string::npos || ::inet_pton(AF_INET, rest.substr(0, colon).c_str(), &a->sin_addr) != 1)
      args.usage_error("bad udp target");
    a->sin_port = htons(static_cast<unsigned short>(std::atoi(rest.c_str() + colon + 1)));
    tolen = sizeof *a;
  } else if (target.rfind("unixgram:", 0) == 0) {
    const std::string path = target.substr(9);
    auto* a = reinterpret_cast<sockaddr_un*>(&to);
    a->sun_family = AF_UNIX;
    if (path.size() >= sizeof a->sun_path) args.usage_error("unix path too long");
    std::memcpy(a->sun_path, path.c_str(), path.size() + 1);
    tolen = sizeof *a;
    family = AF_UNIX;
  } else {
    args.usage_error("--target must be udp:IPV4:PORT or unixgram:PATH");
  }
  const int fd = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const unsigned short id = static_cast<unsigned short>(now_ms() & 0xffff);
  const auto q = query(name, id);
  if (fd < 0) {
    rep.fail("socket", errno);
  } else if (::sendto(fd, q.data(), q.size(), 0, reinterpret_cast<sockaddr*>(&to), tolen) < 0) {
    rep.fail("sendto", errno);
  } else {
    rep.succeed();
    bool answered = false;
    if (family == AF_INET) {
      pollfd p{fd, POLLIN, 0};
      unsigned char buf[512];
      if (::poll(&p, 1, 1000) == 1) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n >= 12 && buf[0] == (id >> 8) && buf[1] == (id & 0xff)) {
          answered = true;
          rep.set("rcode", buf[3] & 0x0f);
          rep.set("answers", (buf[6] << 8) | buf[7]);
        }
      }
    }
    rep.set("answered", answered);
  }
  if (fd >= 0) ::close(fd);
  rep.emit();
  return rep.exit_code();
}
