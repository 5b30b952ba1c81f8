// The /proc nonce scan and its cache of processes older than every box (process_scan.h).
#include "harness/platform/posix/process_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "harness/platform/posix/unique_fd.h"

namespace breakout::process_scan {

namespace {

// Streams `path` and reports whether `needle` occurs in it (bounded read).
bool file_contains(const std::string& path, const std::string& needle) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return false;
  std::string window;
  char buf[65536];
  std::size_t total = 0;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    total += static_cast<std::size_t>(n);
    window.append(buf, static_cast<std::size_t>(n));
    if (window.find(needle) != std::string::npos) return true;
    if (window.size() > needle.size()) window.erase(0, window.size() - needle.size());
    if (total > (256u << 20)) return false;  // not a real cmdline/environ
  }
}

int pidfd_open_compat(int pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

// Field 22 (starttime) of /proc/<pid>/stat, read through the open /proc directory; nullopt
// when unreadable. Field 2 (comm) may hold spaces and ')': count from the last ')' (proc(5)).
std::optional<unsigned long long> start_ticks(int proc_fd, const char* pid) {
  const std::string path = std::string(pid) + "/stat";
  UniqueFd fd(::openat(proc_fd, path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  char buf[1024];
  ssize_t n;
  do n = ::read(fd.get(), buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return std::nullopt;
  for (int field = 2; field < 22; ++field) {  // p sits at the end of field 2
    p = std::strchr(p + 1, ' ');
    if (p == nullptr) return std::nullopt;
  }
  char* end = nullptr;
  const unsigned long long v = std::strtoull(p + 1, &end, 10);
  if (end == p + 1) return std::nullopt;
  return v;
}

// Processes a scan found older than its box, kept across scans so that the next ones need
// not read their `stat` again: pid -> a pidfd of that very process and its start time.
// A pidfd "refers to" one process and becomes readable when it terminates (pidfd_open(2):
// "When the process that it refers to terminates, the file descriptor indicates as readable";
// poll(2) on it). A pid is not reused until its process is reaped, so while the pidfd does
// not poll readable, the pid is still that process, with that start time (execve keeps it).
// One poll(2) over all of them thus replaces an openat + read + close of /proc/<pid>/stat
// per old process in every scan. Process-wide (each entry's start time is compared with each
// box's own), bounded (each entry holds an fd), never destroyed (a box may scan during static
// destruction), guarded by g_old_mu.
struct OldProcess {
  UniqueFd pidfd;
  unsigned long long start = 0;  // /proc/<pid>/stat field 22, boot ticks
};
std::mutex g_old_mu;
std::map<int, OldProcess>& old_processes() {
  static auto* known = new std::map<int, OldProcess>;
  return *known;
}

// At most a quarter of the fd limit, and never more than 1024 entries: the cache must not
// be what makes a spawn fail with EMFILE.
std::size_t old_process_cap() {
  static const std::size_t cap = [] {
    rlimit r{};
    if (::getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::size_t{1024};
    return std::min<std::size_t>(1024, static_cast<std::size_t>(r.rlim_cur / 4));
  }();
  return cap;
}

// The pids, among the cached ones, whose process is still alive now and started before
// `since`; the dead (or unpollable) are dropped from the cache. Called AFTER the scan has
// listed /proc: a pid skipped for being in this set was, from before the listing until this
// poll, occupied by the same old process (its pidfd was opened before the listing and does
// not poll readable), so no process of the attempt can have held it at the listing.
std::set<int> live_old_pids(unsigned long long since) {
  std::set<int> out;
  std::lock_guard lock(g_old_mu);
  auto& known = old_processes();
  if (known.empty()) return out;
  std::vector<pollfd> fds;
  std::vector<int> pids;
  fds.reserve(known.size());
  pids.reserve(known.size());
  for (const auto& [pid, p] : known) {
    fds.push_back({p.pidfd.get(), POLLIN, 0});
    pids.push_back(pid);
  }
  int n;
  do n = ::poll(fds.data(), static_cast<nfds_t>(fds.size()), 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) {  // nothing known for sure: forget them all, the scan reads every pid
    known.clear();
    return out;
  }
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents != 0) known.erase(pids[i]);  // POLLIN: terminated; anything else: unsure
    else if (known[pids[i]].start < since) out.insert(pids[i]);
  }
  return out;
}

struct CloseDir {
  void operator()(DIR* d) const { ::closedir(d); }
};

}  // namespace

// proc(5), "starttime": "the time the process started after system boot ... in clock ticks
// (divide by sysconf(_SC_CLK_TCK))". The kernel takes it from CLOCK_BOOTTIME at fork
// (kernel/fork.c, copy_process: start_boottime = ktime_get_boottime_ns(); fs/proc/array.c,
// do_task_stat: nsec_to_clock_t), truncated, so a process forked after this call never
// shows a smaller value.
unsigned long long boot_ticks_now() {
  timespec ts{};
  const long hz = ::sysconf(_SC_CLK_TCK);
  if (hz <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return 0;
  const unsigned long long ns = static_cast<unsigned long long>(ts.tv_sec) * 1000000000ull +
                                static_cast<unsigned long long>(ts.tv_nsec);
  return ns / (1000000000ull / static_cast<unsigned long long>(hz));
}

// Why processes older than `since` may be skipped: the nonce is drawn for the attempt just
// before its box, and what the scan hunts are the attempt's processes and everything they
// fork: all forked after the box existed (a survivor that left the cgroup by setsid and a
// double fork included: its start time is its own fork's). Not seen: a process older than
// the box that an escapee made execve with the nonce (ptrace): it keeps its start time; such
// a hijack need not exec at all, so it was never something the scan could promise.
std::vector<int> nonce_scan(const std::string& nonce, bool kill_them, unsigned long long since) {
  std::vector<int> found;
  if (nonce.size() < 8) return found;  // a short token would match strangers
  std::unique_ptr<DIR, CloseDir> proc(::opendir("/proc"));
  if (proc == nullptr) return found;
  const int self = static_cast<int>(::getpid());
  std::vector<int> listed;
  while (const dirent* e = ::readdir(proc.get())) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || pid <= 0 || pid == self) continue;
    listed.push_back(static_cast<int>(pid));
  }
  const std::set<int> old = since > 0 ? live_old_pids(since) : std::set<int>{};
  for (const int pid : listed) {
    if (old.count(pid)) continue;  // the same process as when it was found older than a box
    const std::string name = std::to_string(pid);
    // Opened before `stat` is read: if `stat` says older than the box, the pidfd is that
    // process (a process that took the pid in between forked after the box, so is younger).
    UniqueFd pidfd(kill_them || since > 0 ? pidfd_open_compat(pid) : -1);
    if (since > 0) {
      const auto started = start_ticks(::dirfd(proc.get()), name.c_str());
      if (started && *started < since) {  // older than the attempt; unreadable: read it all
        std::lock_guard lock(g_old_mu);
        if (pidfd.get() >= 0 && old_processes().size() < old_process_cap())
          old_processes()[pid] = OldProcess{std::move(pidfd), *started};
        continue;
      }
    }
    const std::string base = "/proc/" + name;
    if (!file_contains(base + "/cmdline", nonce) && !file_contains(base + "/environ", nonce)) continue;
    found.push_back(pid);
    if (!kill_them) continue;
#ifdef SYS_pidfd_send_signal
    if (pidfd.get() >= 0) {
      ::syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0);
      continue;
    }
#endif
    ::kill(static_cast<pid_t>(pid), SIGKILL);
  }
  return found;
}

}  // namespace breakout::process_scan
