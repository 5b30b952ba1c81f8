// The run's name server on Linux: UDP port 53 on the external host's address, in its namespace.
#include "harness/host/name_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <thread>

#include "harness/core/error.h"
#include "harness/host/dns_wire.h"
#include "harness/platform/netns.h"
#include "harness/platform/posix/capabilities.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace {

constexpr std::size_t kMaxNamesKept = 4096;  // the newest names kept (hostile peers ask without end)
constexpr const char* kSystemResolvConf = "/etc/resolv.conf";

std::array<unsigned char, 4> v4_bytes(const std::string& text) {
  in_addr a{};
  check(::inet_pton(AF_INET, text.c_str(), &a) == 1, "name server: not an IPv4 address: " + text);
  std::array<unsigned char, 4> out{};
  std::memcpy(out.data(), &a, 4);
  return out;
}

}  // namespace

struct NameServer::Impl {
  UniqueFd fd;
  ZoneAddresses zone;
  std::string address;
  std::atomic<bool> stop{false};
  mutable std::mutex mu;
  std::deque<std::string> names;
  std::thread thread;

  void serve() {
    unsigned char buf[kDnsMaxDatagram];
    while (!stop) {
      pollfd p{fd.get(), POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      sockaddr_storage from{};
      socklen_t flen = sizeof from;
      const ssize_t n = ::recvfrom(fd.get(), buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
      if (n <= 0 || flen == 0) continue;
      const auto q = parse_dns_question(buf, static_cast<std::size_t>(n));
      if (!q) continue;
      {
        std::lock_guard<std::mutex> lock(mu);
        names.push_back(q->name);
        if (names.size() > kMaxNamesKept) names.pop_front();
      }
      const ZoneAnswer z = zone_answer(q->name, q->type, zone);
      const auto out = z.kind == ZoneAnswer::Kind::kA ? dns_reply(buf, *q, z.a, 0)
                                                      : dns_reply(buf, *q, std::nullopt, z.kind == ZoneAnswer::Kind::kNxDomain ? 3 : 0);
      ::sendto(fd.get(), out.data(), out.size(), 0, reinterpret_cast<sockaddr*>(&from), flen);
    }
  }
};

NameServer::NameServer(const ExternalHost* external, const std::filesystem::path& work_root) {
  if (external == nullptr) {
    why_not_ = "no external host for the name server to run on";
    return;
  }
  if (!has_effective_capability(21)) {  // CAP_SYS_ADMIN
    why_not_ = "CAP_SYS_ADMIN is missing: the spawner cannot get a mount namespace with the harness's resolv.conf";
    return;
  }
  struct stat st {};
  if (::stat(kSystemResolvConf, &st) != 0 || !S_ISREG(st.st_mode)) {
    why_not_ = std::string(kSystemResolvConf) + " is no regular file here: nothing to bind the harness's over";
    return;
  }
  auto impl = std::make_unique<Impl>();
  impl->zone = {v4_bytes(external->address()), v4_bytes(external->second_address())};
  impl->fd = UniqueFd(external->socket_in_namespace(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK));
  if (impl->fd.get() < 0) {
    why_not_ = "name server: socket in namespace " + external->name() + ": " + std::strerror(errno);
    return;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(53);
  std::memcpy(&a.sin_addr, impl->zone.external.data(), 4);
  if (::bind(impl->fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    why_not_ = "name server: bind " + external->address() + ":53: " + std::strerror(errno);
    return;
  }
  impl->address = external->address() + ":53";
  resolv_conf_ = work_root / "resolv.conf";
  {
    std::ofstream f(resolv_conf_);
    // Short, bounded lookups; no search list, so a name is asked as written.
    f << "# breakout's name server for network = \"proxy\" spawns (harness/host/name_server.h)\n"
      << "nameserver " << external->address() << "\noptions timeout:1 attempts:2\n";
    if (!f) {
      why_not_ = "cannot write " + resolv_conf_.string();
      return;
    }
  }
  ::chmod(resolv_conf_.c_str(), 0644);
  impl->thread = std::thread([p = impl.get()] { p->serve(); });
  impl_ = std::move(impl);
}

NameServer::~NameServer() {
  if (impl_) {
    impl_->stop = true;
    if (impl_->thread.joinable()) impl_->thread.join();
  }
  std::error_code ec;
  if (!resolv_conf_.empty()) std::filesystem::remove(resolv_conf_, ec);
}

std::vector<LaunchSpec::BindOver> NameServer::bind_over() const {
  if (!impl_) return {};
  return {{resolv_conf_.string(), kSystemResolvConf}};
}

std::vector<std::string> NameServer::names_containing(const std::string& needle) const {
  std::vector<std::string> out;
  if (!impl_ || needle.empty()) return out;
  std::string low = needle;
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (const std::string& n : impl_->names)
    if (n.find(low) != std::string::npos && out.size() < 8) out.push_back(n);
  return out;
}

std::string NameServer::address() const { return impl_ ? impl_->address : ""; }

}  // namespace breakout
