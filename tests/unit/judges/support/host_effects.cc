// Canned answers and real host effects of the fake sandbox (host_effects.h).
#include "tests/unit/judges/support/host_effects.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <netdb.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "harness/core/error.h"
#include "harness/host/net_listeners.h"

namespace breakout::judges {

namespace fs = std::filesystem;

LaunchResult exited(int code, std::string out, std::string err) {
  LaunchResult r;
  r.started = true;
  r.pid = 1;
  r.exited = true;
  r.exit_code = code;
  r.out_total = out.size();
  r.err_total = err.size();
  r.out = std::move(out);
  r.err = std::move(err);
  return r;
}

LaunchResult killed_by(int signal) {
  LaunchResult r = exited(0);
  r.exited = false;
  r.exit_code = -1;
  r.term_signal = signal;
  return r;
}

LaunchResult timed_out(std::string out) {
  LaunchResult r = killed_by(9);
  r.timed_out = true;
  r.out_total = out.size();
  r.out = std::move(out);
  return r;
}

std::string report_line(const nlohmann::json& report) { return "BREAKOUT-REPORT " + report.dump() + "\n"; }

std::string arg(const SpawnRequest& r, const std::string& flag) {
  const auto& a = r.probe_argv;
  const auto it = std::find(a.begin(), a.end(), flag);
  check(it != a.end() && it + 1 != a.end(), "fake", "the probe argv has no " + flag);
  return *(it + 1);
}

std::map<std::string, std::string> env_seen(const SpawnRequest& r) {
  std::map<std::string, std::string> env = r.caller_env;
  for (const auto& [k, v] : r.env_overrides) env[k] = v;
  return env;
}

namespace {

void put(const fs::path& p, const std::string& text, std::ios::openmode mode) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  std::ofstream out(p, std::ios::binary | mode);
  out << text;
  out.close();
  check(static_cast<bool>(out), "fake", "cannot write " + p.string());
}

// A connected stream socket to `spec`; -1 with errno when it fails.
int dial(const std::string& spec) {
  if (spec.rfind("unix:", 0) == 0) {
    std::string path = spec.substr(5);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    check(path.size() < sizeof a.sun_path, "fake", "unix path too long: " + path);
    std::memcpy(a.sun_path, path.data(), path.size());
    if (path[0] == '@') a.sun_path[0] = '\0';  // abstract (unix(7))
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + (path[0] == '@' ? 0 : 1));
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), len) == 0) return fd;
    if (fd >= 0) ::close(fd);
    return -1;
  }
  check(spec.rfind("tcp:", 0) == 0, "fake", "send_nonce: not a tcp or unix spec: " + spec);
  std::string host_port = spec.substr(4);
  const auto colon = host_port.rfind(':');
  std::string host = host_port.substr(0, colon), port = host_port.substr(colon + 1);
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return -1;
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(res);
  return fd;
}

}  // namespace

void write_text(const fs::path& p, const std::string& text) { put(p, text, std::ios::trunc); }
void append_text(const fs::path& p, const std::string& text) { put(p, text, std::ios::app); }

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void send_nonce(const std::string& spec, const std::string& nonce) {
  const int fd = dial(spec);
  check(fd >= 0, "fake", "cannot connect to " + spec + ": " + std::strerror(errno));
  const std::string line = std::string(kNonceMarker) + nonce + "\n";
  const bool sent = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(line.size());
  ::close(fd);  // the listener's thread records it; the judge waits for it (its own bounded grace)
  check(sent, "fake", "cannot send to " + spec);
}

void Beater::start(const fs::path& file) {
  append_text(file, "beat\n");
  thread_ = std::thread([this, file] {
    while (!stop_.load()) {
      append_text(file, "beat\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the beater's own pace, as the probe's
    }
  });
}

void Beater::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

}  // namespace breakout::judges
