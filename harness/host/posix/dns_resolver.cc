// The recording resolver: reads queries (dns_wire.h), answers A 127.0.0.1, remembers names.
#include "harness/host/posix/dns_resolver.h"

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
#include "harness/host/dns_wire.h"

namespace breakout {

namespace {

constexpr std::size_t kMaxNames = 64;  // names remembered per attempt (hostile peer)

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
    unsigned char buf[kDnsMaxDatagram];
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      sockaddr_storage from{};
      socklen_t flen = sizeof from;
      const ssize_t n = ::recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
      if (n <= 0) continue;
      const auto q = parse_dns_question(buf, static_cast<std::size_t>(n));
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (names_.size() < kMaxNames) names_.push_back(q && !q->name.empty() ? q->name : "(malformed query)");
      }
      if (!q || q->name.empty() || flen == 0) continue;
      // One A record 127.0.0.1 whatever the type asked: the probe asks raw A queries.
      const auto out = dns_reply(buf, *q, std::array<unsigned char, 4>{127, 0, 0, 1}, 0);
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
