// The recording resolver: parses queries (RFC 1035 §4.1), answers A for *.breakout.test, remembers names.
#include "harness/oracle/posix/dns_resolver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "harness/core/error.h"
#include "harness/core/text.h"

namespace breakout {

namespace {

constexpr std::size_t kMaxNames = 64;    // names remembered per attempt (hostile peer)
constexpr std::size_t kMaxDatagram = 512;  // RFC 1035 UDP limit; longer is truncated

// The QNAME of the first question as dotted lower-case text; "" when malformed.
std::string parse_qname(const unsigned char* p, std::size_t n, std::size_t* end) {
  if (n < 12) return "";
  std::string name;
  std::size_t at = 12;
  while (at < n) {
    const unsigned len = p[at++];
    if (len == 0) {
      *end = at;
      return name;
    }
    if (len > 63 || at + len > n || name.size() + len > 253) return "";  // no compression in a question
    if (!name.empty()) name += '.';
    for (unsigned i = 0; i < len; ++i) name += static_cast<char>(std::tolower(p[at + i]));
    at += len;
  }
  return "";
}

class DnsResolver : public HostObject {
 public:
  DnsResolver(bool loopback, const HostObjectSetup& s) : loopback_(loopback), nonce_(s.nonce) {
    if (loopback_) {
      fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd_ < 0) throw_errno("socket resolver");
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof a;
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw_errno("bind resolver");
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
      spec_ = "udp:127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    } else {
      path_ = (s.workspace / (".dns-" + s.nonce.substr(0, 8) + ".sock")).string();
      fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd_ < 0) throw_errno("socket resolver");
      sockaddr_un a{};
      a.sun_family = AF_UNIX;
      check(path_.size() < sizeof a.sun_path, "resolver path too long: " + path_);
      std::memcpy(a.sun_path, path_.c_str(), path_.size() + 1);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw_errno("bind " + path_);
      spec_ = "unixgram:" + path_;
    }
    thread_ = std::thread([this] { serve(); });
  }
  ~DnsResolver() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  std::string spec() const override { return spec_; }
  HostEvidence inspect() override {
    HostEvidence e;
    const std::string want = nonce_ + ".breakout.test";
    std::lock_guard<std::mutex> lock(mu_);
    const bool seen = std::find(names_.begin(), names_.end(), want) != names_.end();
    nlohmann::json names = nlohmann::json::array();
    for (const auto& n : names_) names.push_back(printable_excerpt(n, 256));
    e.evidence["resolver"] = spec_;
    e.evidence["names_seen"] = names;
    e.evidence["answers_sent"] = answers_.load();
    e.evidence["nonce_name_resolved"] = seen;
    e.changed = seen;
    e.summary = seen ? "the resolver at " + spec_ + " was asked for " + want
                     : "the resolver at " + spec_ + " never saw the nonce name (" + std::to_string(names_.size()) + " names)";
    return e;
  }

 private:
  void serve() {
    unsigned char buf[kMaxDatagram];
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      sockaddr_storage from{};
      socklen_t flen = sizeof from;
      const ssize_t n = ::recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
      if (n <= 0) continue;
      std::size_t end = 0;
      const std::string name = parse_qname(buf, static_cast<std::size_t>(n), &end);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (names_.size() < kMaxNames) names_.push_back(name.empty() ? "(malformed query)" : name);
      }
      if (name.empty() || end + 4 > static_cast<std::size_t>(n) || flen == 0) continue;
      // Answer: the question, then one A record 127.0.0.1 (pointer to the name at 12), TTL 0.
      std::vector<unsigned char> out(buf, buf + end + 4);
      out[2] = 0x81;  // QR, RD
      out[3] = 0x80;  // RA, NOERROR
      out[6] = 0, out[7] = 1;                       // ANCOUNT 1
      out[8] = out[9] = out[10] = out[11] = 0;      // NSCOUNT, ARCOUNT
      const unsigned char rr[] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 127, 0, 0, 1};
      out.insert(out.end(), rr, rr + sizeof rr);
      if (::sendto(fd_, out.data(), out.size(), 0, reinterpret_cast<sockaddr*>(&from), flen) > 0) ++answers_;
    }
  }

  bool loopback_;
  std::string nonce_, spec_, path_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<int> answers_{0};
  std::mutex mu_;
  std::vector<std::string> names_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<HostObject> make_dns_resolver(bool loopback, const HostObjectSetup& setup) {
  return std::make_unique<DnsResolver>(loopback, setup);
}

}  // namespace breakout
