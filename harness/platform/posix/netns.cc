// Linux ExternalHost: a network namespace + veth pair made with iproute2, torn down in the destructor.
#include "harness/platform/netns.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/core/error.h"
#include "harness/core/sha256.h"
#include "harness/platform/os.h"
#include "harness/platform/posix/capabilities.h"
#include "harness/platform/process.h"

namespace breakout {

namespace {

std::string find_ip() {
  if (auto p = find_on_path("ip")) return *p;
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
    if (::access(p, X_OK) == 0) return p;
  return "";
}

std::set<std::string> local_ipv4_addresses() {
  std::set<std::string> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    char buf[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
    out.insert(buf);
  }
  ::freeifaddrs(list);
  return out;
}

// Runs one `ip` command (no shell); "" on success, else what went wrong.
std::string run_ip(const std::vector<std::string>& argv) {
  LaunchSpec spec;
  spec.argv = argv;
  spec.env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"};
  spec.timeout = std::chrono::seconds(10);
  spec.max_capture = 4096;
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  try {
    const LaunchResult r = run_process(spec, nullptr, nullptr);
    if (!r.started) return cmd + ": " + r.start_error;
    if (r.exited && r.exit_code == 0) return "";
    std::string err = r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    const std::string how = r.timed_out ? "timed out"
                            : r.exited  ? "exit " + std::to_string(r.exit_code)
                                        : "signal " + std::to_string(r.term_signal);
    return cmd + ": " + how + (err.empty() ? "" : ": " + err);
  } catch (const std::exception& e) {
    return cmd + ": " + e.what();
  }
}

// Serializes "pick a free 198.18.k.0/30 + configure it" between concurrent
// harness processes on this machine (otherwise two runs can both see k free,
// and the host then routes one run's traffic into the other's namespace).
class NetnsLock {
 public:
  NetnsLock() {
    fd_ = ::open("/run/breakout-netns.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      err_ = errno;
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() >= deadline) {
        err_ = errno == EWOULDBLOCK ? ETIMEDOUT : errno;
        ::close(fd_);
        fd_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    locked_ = true;
  }
  ~NetnsLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  NetnsLock(const NetnsLock&) = delete;
  NetnsLock& operator=(const NetnsLock&) = delete;
  bool locked() const { return locked_; }
  std::string why() const { return "cannot lock /run/breakout-netns.lock: " + std::string(std::strerror(err_)); }

 private:
  int fd_ = -1;
  int err_ = 0;
  bool locked_ = false;
};

bool is_hex8(const std::string& s) {
  if (s.size() != 8) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::unique_ptr<ExternalHost> ExternalHost::create(const std::string& run_nonce, std::string* why_not) {
  auto fail = [why_not](const std::string& why) -> std::unique_ptr<ExternalHost> {
    if (why_not != nullptr) *why_not = why;
    return nullptr;
  };
  if (!has_effective_capability(12))  // CAP_NET_ADMIN
    return fail("CAP_NET_ADMIN is missing (the external host needs root)");
  const std::string ip = find_ip();
  if (ip.empty()) return fail("iproute2 'ip' not found");

  // Names: netns bo-<8hex>, veth bo<8hex>h / bo<8hex>n (IFNAMSIZ: <= 15 chars).
  std::string tag = run_nonce.substr(0, 8);
  if (!is_hex8(tag)) tag = sha256_hex(run_nonce).substr(0, 8);
  const std::string ns = "bo-" + tag;
  const std::string veth_host = "bo" + tag + "h";
  const std::string veth_ns = "bo" + tag + "n";

  const NetnsLock lock;
  if (!lock.locked()) return fail(lock.why());

  // 198.18.k.0/30, k from the nonce; skip a k another run already uses here.
  const std::set<std::string> taken = local_ipv4_addresses();
  const int k0 = static_cast<int>(std::stoul(tag, nullptr, 16) % 256);
  int k = -1;
  for (int i = 0; i < 256 && k < 0; ++i) {
    const int cand = (k0 + i) % 256;
    const std::string prefix = "198.18." + std::to_string(cand) + ".";
    bool used = false;
    for (int host = 0; host < 4; ++host) used = used || taken.count(prefix + std::to_string(host)) > 0;
    if (!used) k = cand;
  }
  if (k < 0) return fail("no free 198.18.k.0/30 subnet");
  const std::string host_addr = "198.18." + std::to_string(k) + ".1";
  const std::string ns_addr = "198.18." + std::to_string(k) + ".2";
  const std::string ns_addr2 = "198.19." + std::to_string(k) + ".2";

  bool ns_added = false, link_added = false;
  auto undo = [&] {
    if (link_added) run_ip({ip, "link", "del", veth_host});  // deletes the peer too
    if (ns_added) run_ip({ip, "netns", "del", ns});
  };
  const std::vector<std::vector<std::string>> steps = {
      {ip, "netns", "add", ns},
      {ip, "link", "add", veth_host, "type", "veth", "peer", "name", veth_ns},
      {ip, "link", "set", veth_ns, "netns", ns},
      {ip, "addr", "add", host_addr + "/30", "dev", veth_host},
      {ip, "link", "set", veth_host, "up"},
      {ip, "-n", ns, "addr", "add", ns_addr + "/30", "dev", veth_ns},
      {ip, "-n", ns, "link", "set", veth_ns, "up"},
      {ip, "-n", ns, "link", "set", "lo", "up"},
      // The second address: on the namespace's lo; the host's route goes with veth_host.
      {ip, "-n", ns, "addr", "add", ns_addr2 + "/32", "dev", "lo"},
      {ip, "route", "replace", ns_addr2 + "/32", "via", ns_addr, "dev", veth_host},
  };
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string err = run_ip(steps[i]);
    if (!err.empty()) {
      undo();
      return fail(err);
    }
    if (i == 0) ns_added = true;
    if (i == 1) link_added = true;
  }

  std::unique_ptr<ExternalHost> host(new ExternalHost());
  host->ns_name_ = ns;
  host->veth_host_ = veth_host;
  host->ns_addr_ = ns_addr;
  host->ns_addr2_ = ns_addr2;
  host->host_addr_ = host_addr;
  return host;
}

ExternalHost::~ExternalHost() {
  const std::string ip = find_ip();
  if (ip.empty()) return;
  run_ip({ip, "link", "del", veth_host_});
  run_ip({ip, "netns", "del", ns_name_});
}

int ExternalHost::socket_in_namespace(int domain, int type) const {
  // setns() changes only the calling thread's namespace, so a short-lived
  // thread does it; the socket stays in the namespace it was created in.
  int fd = -1;
  int err = 0;
  std::thread helper([&] {
    const int nsfd = ::open(("/run/netns/" + ns_name_).c_str(), O_RDONLY | O_CLOEXEC);
    if (nsfd < 0) {
      err = errno;
      return;
    }
    if (::setns(nsfd, CLONE_NEWNET) != 0) {
      err = errno;
      ::close(nsfd);
      return;
    }
    ::close(nsfd);
    fd = ::socket(domain, type, 0);
    if (fd < 0) err = errno;
  });
  helper.join();
  if (fd < 0) errno = err;
  return fd;
}

}  // namespace breakout
