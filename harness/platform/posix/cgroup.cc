// CgroupDir: the cgroup v2 directory of one Containment (cgroup.h).
#include "harness/platform/posix/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "harness/platform/posix/cgroup_events.h"

namespace breakout {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

bool read_small_file(const std::string& path, std::string& out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return false;
  out.clear();
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > (16u << 20)) return true;  // a cgroup with millions of pids: enough
  }
}

bool write_file(const std::string& path, const char* text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) return false;
  const std::size_t len = std::strlen(text);
  ssize_t n;
  do n = ::write(fd.get(), text, len);
  while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(len);
}

std::vector<int> read_pids(const std::string& procs_path) {
  std::vector<int> pids;
  std::string text;
  if (!read_small_file(procs_path, text)) return pids;
  std::istringstream in(text);
  for (int pid; in >> pid;) pids.push_back(pid);
  return pids;
}

// Unescapes the octal escapes (\040 etc.) of /proc/self/mounts fields (proc(5), getmntent(3)).
std::string unescape_mount_field(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string oct = s.substr(i + 1, 3);
      if (oct.size() == 3 && oct.find_first_not_of("01234567") == std::string::npos) {
        out += static_cast<char>(std::stoi(oct, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

std::string find_cgroup2_mount() {
  std::ifstream mounts("/proc/self/mounts");
  std::string line;
  std::string found;
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string source, target, fstype;
    if (!(fields >> source >> target >> fstype)) continue;
    if (fstype != "cgroup2") continue;
    const std::string dir = unescape_mount_field(target);
    // Prefer the canonical locations when several cgroup2 mounts exist.
    if (dir == "/sys/fs/cgroup" || dir == "/sys/fs/cgroup/unified") return dir;
    if (found.empty()) found = dir;
  }
  return found;
}

std::string sanitize_label(const std::string& label) {
  std::string out;
  for (char c : label.substr(0, 200)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    out += ok ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "attempt";
  return out;
}

}  // namespace

std::unique_ptr<CgroupDir> CgroupDir::create(const std::string& label) {
  const std::string mount = find_cgroup2_mount();
  if (mount.empty()) return nullptr;
  const std::string parent = mount + "/breakout";
  const std::string dir = parent + "/" + sanitize_label(label);
  bool made = false;
  for (int tries = 0; tries < 5 && !made; ++tries) {
    if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST) return nullptr;  // not writable: nonce scan
    if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) made = true;
    else if (errno != ENOENT) return nullptr;  // ENOENT: a finishing box removed `parent`; retry
  }
  if (!made) return nullptr;
  UniqueFd procs(::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  if (procs.get() < 0) {
    ::rmdir(dir.c_str());
    return nullptr;
  }
  // clone(2) CLONE_INTO_CGROUP takes "a file descriptor referring to a cgroup v2 directory"
  // (O_RDONLY or O_PATH). Unopenable: -1, and every start writes cgroup.procs instead.
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  return std::unique_ptr<CgroupDir>(new CgroupDir(dir, std::move(procs), std::move(dir_fd)));
}

CgroupDir::CgroupDir(std::string path, UniqueFd procs_fd, UniqueFd dir_fd)
    : path_(std::move(path)), procs_fd_(std::move(procs_fd)), dir_fd_(std::move(dir_fd)) {}

CgroupDir::~CgroupDir() {
  procs_fd_.reset();
  dir_fd_.reset();
  // EBUSY while exiting tasks are still counted after the kill: wait for the kernel's
  // "populated 0" (cgroup_events.h) instead of sleeping; the 10 ms poll stays as fallback.
  const auto deadline = Clock::now() + 2s;
  wait_cgroup_unpopulated(path_, deadline);
  while (::rmdir(path_.c_str()) != 0 && errno == EBUSY && Clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  // The shared parent goes when the last attempt's box goes (ENOTEMPTY otherwise).
  const std::string parent = std::filesystem::path(path_).parent_path().string();
  ::rmdir(parent.c_str());
}

std::vector<int> CgroupDir::pids() const { return read_pids(path_ + "/cgroup.procs"); }

std::set<int> CgroupDir::kill_all(Clock::time_point deadline) const {
  std::set<int> seen;
  const std::string procs = path_ + "/cgroup.procs";
  for (int pid : read_pids(procs)) seen.insert(pid);
  // cgroup.kill (Linux >= 5.14) kills the whole subtree atomically, forks
  // in flight included. Older kernels: SIGKILL whatever is listed, again
  // and again, until the list stays empty.
  const bool have_kill = write_file(path_ + "/cgroup.kill", "1");
  if (have_kill) wait_cgroup_unpopulated(path_, deadline);  // woken when the last one is gone
  for (;;) {
    const std::vector<int> pids = read_pids(procs);
    if (pids.empty()) break;
    for (int pid : pids) {
      seen.insert(pid);
      if (!have_kill) ::kill(pid, SIGKILL);
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(5ms);
  }
  return seen;
}

}  // namespace breakout
