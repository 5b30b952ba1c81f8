// POSIX run_process (clone(CLONE_VM|CLONE_VFORK) launcher + Boost.Asio drain) and Containment (cgroup v2 / nonce scan).
//
// How the pieces fit:
//  * Starting the child is vfork_spawn::start (vfork_spawn.cc): glibc
//    posix_spawn's design, clone(CLONE_VM|CLONE_VFORK|CLONE_PIDFD) on its own
//    stack, the child setup (signals to SIG_DFL, stdio, cgroup join, tty,
//    chdir, fds close-on-exec, deliberate leaks), execve. Exec and setup
//    failures come back through shared memory; the failed child is reaped
//    there. This replaced process::v2::posix::default_launcher, whose fork()
//    of the multithreaded harness was most of `none`'s overhead over a raw
//    posix_spawn (docs/bench.md). Boost 1.81's vfork_launcher is unusable:
//    it calls notify_fork(fork_child) in the vfork child, which, with memory
//    shared, corrupts the parent's epoll reactor.
//  * process::v2::basic_process is built from that pid and pidfd and waits
//    through it with Asio: async_wait, no SIGCHLD handler. terminate() is
//    kill(pid, SIGKILL) on the direct child only.
//  * stdout/stderr are asio::readable_pipe read concurrently; the timeout and
//    the post-exit drain bound are asio::steady_timer. Cancellation by the
//    interrupt flag wakes the same epoll through the interrupt pipe
//    (interrupt_wake.h); any other cancel flag is polled every 10 ms.
//
// Decisions that predate the launcher and still hold:
//  * fd hygiene: the child marks every fd >= 3 close-on-exec itself
//    (close_range CLOSE_RANGE_CLOEXEC; getdents64 on /proc/self/fd as
//    fallback): a library or another thread may open an inheritable fd at any
//    time. (Boost 1.81's own close_all() leaked every fd below its error pipe:
//    posix/detail/close_handles.ipp compares a whitelist entry with itself.)
//  * pipes and /dev/null are created with pipe2(O_CLOEXEC)/open(O_CLOEXEC), so
//    a concurrent spawn from another thread cannot inherit them even in the
//    window before its child marks its fds.
//  * argv[0]: the child sees argv[0] as given, execve gets the resolved path.
//  * PATH lookup: process::v2::environment::find_executable takes an environment
//    view, not our "NAME=value" vector; the lookup is a few lines (below), done
//    in the parent since the CLONE_VM child may not allocate.
#ifndef BOOST_PROCESS_V2_SEPARATE_COMPILATION
#define BOOST_PROCESS_V2_SEPARATE_COMPILATION 1
#endif
#ifndef BOOST_PROCESS_USE_STD_FS
#define BOOST_PROCESS_USE_STD_FS 1
#endif

#include "harness/platform/process.h"
#include "harness/platform/posix/cgroup_events.h"
#include "harness/platform/posix/interrupt_wake.h"

// Boost 1.81's process/v2 headers use these without including them.
#include <boost/optional.hpp>
#include <boost/type_traits.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2/process.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "harness/core/error.h"
#include "harness/platform/posix/spawn.h"
#include "harness/platform/posix/unique_fd.h"
#include "harness/platform/posix/vfork_spawn.h"

namespace breakout {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// ---------------------------------------------------------------------------
// Small POSIX helpers

// Moves `fd` to a number >= 3 (CLOEXEC) so that dup2 onto 0/1/2 in the child
// can never clobber one of our own pipe ends (possible when the harness itself
// was started with a closed stdin/stdout/stderr).
int above_stdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return moved;
}

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

// Unescapes the octal escapes (\040 etc.) of /proc/self/mounts fields.
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

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

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

// Clock ticks since boot, in the unit of /proc/<pid>/stat field 22 (proc(5), "starttime":
// "the time the process started after system boot ... in clock ticks (divide by
// sysconf(_SC_CLK_TCK))"). The kernel takes it from CLOCK_BOOTTIME at fork
// (kernel/fork.c, copy_process: start_boottime = ktime_get_boottime_ns(); fs/proc/array.c,
// do_task_stat: nsec_to_clock_t), truncated, so a process forked after this call never
// shows a smaller value. 0 when the clock is unreadable: then nothing is skipped.
unsigned long long boot_ticks_now() {
  timespec ts{};
  const long hz = ::sysconf(_SC_CLK_TCK);
  if (hz <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return 0;
  const unsigned long long ns = static_cast<unsigned long long>(ts.tv_sec) * 1000000000ull +
                                static_cast<unsigned long long>(ts.tv_nsec);
  return ns / (1000000000ull / static_cast<unsigned long long>(hz));
}

// Field 22 (starttime) of /proc/<pid>/stat, read through the open /proc directory; nullopt
// when unreadable. Field 2 (comm) may hold spaces and ')': count from the last ')'.
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
// per old process (~180 here) in every scan. Bounded (each entry holds an fd), never
// destroyed (a box may scan during static destruction), guarded by g_old_mu.
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

// Pids (other than ours) whose cmdline or environ contains `nonce`. With
// `kill_them`, each is SIGKILLed through a pidfd opened before reading its
// files, so a recycled pid is never signalled.
//
// Processes started before `since` (boot ticks, boot_ticks_now() when the box was made)
// are not read. The nonce is drawn for the attempt just before its box, and what the scan
// hunts are the attempt's processes and everything they fork: all forked after the box
// existed (a survivor that left the cgroup by setsid and a double fork included: its start
// time is its own fork's). Not seen: a process older than the box that an escapee made
// execve with the nonce (ptrace): it keeps its start time; such a hijack need not exec at
// all, so it was never something the scan could promise. Reading `stat` alone for the ~170
// older processes replaced a pidfd plus `cmdline` and `environ` each (docs/fuzzing.md);
// since a process once seen older than a box is remembered with a pidfd (old_processes),
// a later scan reads `stat` only for the pids it has not seen before.
std::vector<int> nonce_scan(const std::string& nonce, bool kill_them, unsigned long long since) {
  std::vector<int> found;
  if (nonce.size() < 8) return found;  // a short token would match strangers
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  const int self = static_cast<int>(::getpid());
  std::vector<int> listed;
  while (const dirent* e = ::readdir(proc)) {
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
      const auto started = start_ticks(::dirfd(proc), name.c_str());
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
  ::closedir(proc);
  return found;
}

// ---------------------------------------------------------------------------
// Parent-side helpers

// argv[0] without '/' is searched on the child's PATH (spec.env), like env(1)
// and execvpe do; without PATH in spec.env, on ours.
bool resolve_executable(const std::string& arg0, const std::vector<std::string>& env, std::string* exe,
                        std::string* why) {
  if (arg0.empty()) {
    *why = "argv[0] is empty";
    return false;
  }
  if (arg0.find('/') != std::string::npos) {
    *exe = arg0;  // a missing/unrunnable file: execve's errno, via vfork_spawn
    return true;
  }
  std::string path;
  bool have_path = false;
  for (const std::string& kv : env) {
    if (kv.rfind("PATH=", 0) == 0) {
      path = kv.substr(5);
      have_path = true;
      break;  // getenv() semantics: the first one wins
    }
  }
  if (!have_path) {
    const char* ours = std::getenv("PATH");
    path = ours != nullptr ? ours : "/usr/local/bin:/usr/bin:/bin";
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = path.find(':', start);
    std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    std::error_code ec;
    std::filesystem::path candidate = std::filesystem::absolute(std::filesystem::path(dir) / arg0, ec);
    struct stat st {};
    if (!ec && ::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      *exe = candidate.string();
      return true;
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  *why = "'" + arg0 + "' not found on PATH (" + path + ")";
  return false;
}

struct Stream {
  explicit Stream(asio::io_context& ctx, int fd, std::string* keep, std::size_t* total)
      : pipe(ctx, fd), keep(keep), total(total) {}
  asio::readable_pipe pipe;
  std::string* keep;
  std::size_t* total;
  bool open = true;
  std::vector<char> buf = std::vector<char>(64 * 1024);  // heap: run_process may run on a small thread stack
};

// Empties the box's cgroup (nothing without one); returns the pids it listed.
std::set<int> kill_cgroup(const std::string& cgroup_dir, Clock::time_point deadline) {
  std::set<int> seen;
  if (cgroup_dir.empty()) return seen;
  const std::string procs = cgroup_dir + "/cgroup.procs";
  for (int pid : read_pids(procs)) seen.insert(pid);
  // cgroup.kill (Linux >= 5.14) kills the whole subtree atomically, forks
  // in flight included. Older kernels: SIGKILL whatever is listed, again
  // and again, until the list stays empty.
  const bool have_kill = write_file(cgroup_dir + "/cgroup.kill", "1");
  if (have_kill) wait_cgroup_unpopulated(cgroup_dir, deadline);  // woken when the last one is gone
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

// What the /proc scan keeps per box. It lives here, keyed by the box, so that process.h,
// the interface the Windows build shares, stays as it is (nothing of this is Windows').
struct ScanState {
  unsigned long long since = 0;    // boot ticks when the box was made (nonce_scan skips older)
  long long starts = 0;            // starts into the box so far (counted in prepare)
  long long starts_at_sweep = -1;  // `starts` when kill_all last ended with a clean scan
};
std::mutex g_scan_mu;
// Never destroyed: a box may outlive static destruction (guarded by g_scan_mu).
std::map<const Containment*, ScanState>& scan_states() {
  static auto* states = new std::map<const Containment*, ScanState>;
  return *states;
}

template <typename F>
auto with_scan_state(const Containment* box, F f) {
  std::lock_guard lock(g_scan_mu);
  return f(scan_states()[box]);
}

}  // namespace

// ---------------------------------------------------------------------------
// Containment

Containment::Containment(std::string label, std::string nonce)
    : label_(std::move(label)), nonce_(std::move(nonce)) {
  with_scan_state(this, [](ScanState& st) { st = ScanState{boot_ticks_now(), 0, -1}; });
  // BREAKOUT_FORCE_NONCE_SCAN=1 skips cgroups (tests of the fallback; hosts
  // whose cgroup2 delegation is broken).
  if (env_flag("BREAKOUT_FORCE_NONCE_SCAN")) return;
  const std::string mount = find_cgroup2_mount();
  if (mount.empty()) return;
  const std::string parent = mount + "/breakout";
  const std::string dir = parent + "/" + sanitize_label(label_);
  bool made = false;
  for (int tries = 0; tries < 5 && !made; ++tries) {
    if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST) return;  // not writable: nonce scan
    if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) made = true;
    else if (errno != ENOENT) return;  // ENOENT: a finishing Containment removed `parent`; retry
  }
  if (!made) return;
  const int fd = ::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    ::rmdir(dir.c_str());
    return;
  }
  cgroup_dir_ = dir;
  procs_fd_ = fd;
  // clone(2) CLONE_INTO_CGROUP takes "a file descriptor referring to a cgroup v2 directory"
  // (O_RDONLY or O_PATH). Unopenable: -1, and every start writes cgroup.procs instead.
  dir_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

Containment::~Containment() {
  // kill_all() after judging already swept /proc clean; nothing started since, so one scan
  // per attempt is enough (the cgroup is still emptied: it is cheap and rmdir needs it).
  const bool swept = with_scan_state(this, [](ScanState& st) { return st.starts_at_sweep == st.starts; });
  if (swept) kill_cgroup(cgroup_dir_, Clock::now() + 2s);
  else kill_all();
  {
    std::lock_guard lock(g_scan_mu);
    scan_states().erase(this);
  }
  if (procs_fd_ >= 0) ::close(procs_fd_);
  if (dir_fd_ >= 0) ::close(dir_fd_);
  if (cgroup_dir_.empty()) return;
  // EBUSY while exiting tasks are still counted after the kill: wait for the kernel's
  // "populated 0" (cgroup_events.h) instead of sleeping; the 10 ms poll stays as fallback.
  const auto deadline = Clock::now() + 2s;
  wait_cgroup_unpopulated(cgroup_dir_, deadline);
  while (::rmdir(cgroup_dir_.c_str()) != 0 && errno == EBUSY && Clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  // The shared parent goes when the last attempt's box goes (ENOTEMPTY otherwise).
  const std::string parent = std::filesystem::path(cgroup_dir_).parent_path().string();
  ::rmdir(parent.c_str());
}

int Containment::kill_all() noexcept {
  try {
    const auto deadline = Clock::now() + 2s;
    const auto [since, starts] = with_scan_state(this, [](ScanState& st) { return std::make_pair(st.since, st.starts); });
    std::set<int> seen = kill_cgroup(cgroup_dir_, deadline);
    // The nonce scan: the whole mechanism without a cgroup, and a second net
    // for anything that left the cgroup (a root probe can write cgroup.procs).
    for (;;) {
      const std::vector<int> pids = nonce_scan(nonce_, /*kill_them=*/true, since);
      if (pids.empty()) {
        // clean: only a later start needs another scan
        with_scan_state(this, [starts = starts](ScanState& st) { st.starts_at_sweep = starts; });
        break;
      }
      seen.insert(pids.begin(), pids.end());
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(10ms);
    }
    return static_cast<int>(seen.size());
  } catch (...) {
    return 0;
  }
}

int Containment::live_count() const {
  std::set<int> live;
  if (!cgroup_dir_.empty()) {
    for (int pid : read_pids(cgroup_dir_ + "/cgroup.procs")) live.insert(pid);
  }
  const unsigned long long since = with_scan_state(this, [](ScanState& st) { return st.since; });
  for (int pid : nonce_scan(nonce_, /*kill_them=*/false, since)) live.insert(pid);
  return static_cast<int>(live.size());
}

std::string Containment::mechanism() const {
  return cgroup_dir_.empty() ? "nonce-scan" : "cgroup2 " + cgroup_dir_;
}

// ---------------------------------------------------------------------------
// run_process

namespace {

using Process = bp::basic_process<asio::io_context::executor_type>;

// How often a run waiting on the interrupt pipe still looks at the flag itself.
constexpr auto kCancelBackstop = 2s;

// Everything vfork_spawn::start needs, owned here (the child only reads it).
struct PreparedLaunch {
  std::string exe;
  std::vector<const char*> argv, envp;
  std::vector<UniqueFd> leaked;  // parent copies of spec.inherit_dirs
  vfork_spawn::ChildPlan plan;
};

// Resolves the executable and prepares argv/envp/leaked dirs before cloning:
// the CLONE_VM child may not allocate. False with *error set on failure.
bool prepare(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd, int err_fd, PreparedLaunch& l,
             std::string* error) {
  if (spec.argv.empty()) {
    *error = "empty argv";
    return false;
  }
  if (!resolve_executable(spec.argv[0], spec.env, &l.exe, error)) return false;
  if (spec.inherit_dirs.size() > kMaxInheritedDirs) {
    *error = "too many inherit_dirs";
    return false;
  }
  auto sys_fail = [error](const std::string& step) {
    *error = step + ": " + std::strerror(errno);
    return false;
  };
  for (const std::string& a : spec.argv) l.argv.push_back(a.c_str());
  l.argv.push_back(nullptr);
  for (const std::string& e : spec.env) l.envp.push_back(e.c_str());
  l.envp.push_back(nullptr);

  vfork_spawn::ChildPlan& p = l.plan;
  p.exe = l.exe.c_str();
  p.argv = l.argv.data();  // argv[0] as given, not the resolved path
  p.envp = l.envp.data();
  p.stdio[0] = in_fd;
  p.stdio[1] = out_fd;
  p.stdio[2] = err_fd;
  p.cgroup_procs_fd = box != nullptr ? box->cgroup_procs_fd() : -1;
  p.cgroup_dir_fd = box != nullptr && p.cgroup_procs_fd >= 0 ? box->cgroup_dir_fd() : -1;
  if (box != nullptr) with_scan_state(box, [](ScanState& st) { ++st.starts; });  // a sweep no longer covers it
  p.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  p.make_ctty = !spec.controlling_tty.empty();
  // Deliberate leaks (class fd-leak). Parent copies sit above every target number,
  // so no dup2 onto a target clobbers another leak's source.
  int highest = 2;
  for (const auto& d : spec.inherit_dirs) highest = std::max(highest, d.number);
  for (const auto& d : spec.inherit_dirs) {
    if (d.number < 3) {
      *error = "inherit_dirs: fd number " + std::to_string(d.number) + " is below 3";
      return false;
    }
    UniqueFd dir(::open(d.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0) return sys_fail("open inherited dir " + d.path);
    UniqueFd high(::fcntl(dir.get(), F_DUPFD_CLOEXEC, highest + 1));
    if (high.get() < 0) return sys_fail("fcntl F_DUPFD");
    p.leak_from[p.leaks] = high.get();
    p.leak_to[p.leaks] = d.number;
    ++p.leaks;
    l.leaked.push_back(std::move(high));
  }
  return true;
}

// Starts spec.argv inside `box` with in_fd/out_fd/err_fd as its
// stdin/stdout/stderr (the caller closes its copies afterwards). Returns the
// child, or nullopt with *error set (a child that failed before or at execve
// has been reaped).
std::optional<vfork_spawn::Child> start_child(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd,
                                              int err_fd, std::string* error) {
  PreparedLaunch l;
  if (!prepare(spec, box, in_fd, out_fd, err_fd, l, error)) return std::nullopt;
  try {
    return vfork_spawn::start(l.plan);
  } catch (const Error& e) {
    *error = e.what();
    return std::nullopt;
  }
}

// start_child, with the child wrapped for Asio (async_wait on its pidfd).
std::optional<Process> launch(asio::io_context& ctx, const LaunchSpec& spec, Containment* box, int in_fd,
                              int out_fd, int err_fd, std::string* error, std::string* joined) {
  std::optional<vfork_spawn::Child> child = start_child(spec, box, in_fd, out_fd, err_fd, error);
  if (!child) return std::nullopt;
  if (child->joined != vfork_spawn::BoxJoin::kNone) *joined = vfork_spawn::to_string(child->joined);
  try {
    std::optional<Process> proc;
    proc.emplace(ctx.get_executor(), child->pid, child->pidfd.get());
    child->pidfd.release();  // owned by the process handle now
    return proc;
  } catch (const std::exception& e) {
    // E.g. epoll registration of the pidfd failing: do not leave the child behind.
    ::kill(child->pid, SIGKILL);
    while (::waitpid(child->pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    *error = "launch " + spec.argv[0] + ": " + e.what();
    return std::nullopt;
  }
}

}  // namespace

int spawn_with_stdio(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd, int err_fd,
                     std::string* error) {
  std::optional<vfork_spawn::Child> child = start_child(spec, box, in_fd, out_fd, err_fd, error);
  return child ? child->pid : -1;  // the pidfd closes here; the caller reaps with waitpid
}

LaunchResult run_process(const LaunchSpec& spec, Containment* box, const std::atomic<bool>* cancel) {
  LaunchResult r;
  auto sys_fail = [&r](const std::string& step) {
    r.start_error = step + ": " + std::strerror(errno);
    return r;
  };
  // stdin: /dev/null, or the harness's pty when the attempt needs a controlling terminal (tty-inject).
  const bool tty = !spec.controlling_tty.empty();
  UniqueFd devnull(above_stdio(tty ? ::open(spec.controlling_tty.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC)
                                   : ::open("/dev/null", O_RDONLY | O_CLOEXEC)));
  if (devnull.get() < 0) return sys_fail(tty ? "open " + spec.controlling_tty : "open /dev/null");
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return sys_fail("pipe2");
  UniqueFd out_r(above_stdio(p[0])), out_w(above_stdio(p[1]));
  if (::pipe2(p, O_CLOEXEC) != 0) return sys_fail("pipe2");
  UniqueFd err_r(above_stdio(p[0])), err_w(above_stdio(p[1]));
  if (out_r.get() < 0 || out_w.get() < 0 || err_r.get() < 0 || err_w.get() < 0) return sys_fail("fcntl F_DUPFD");

  asio::io_context ctx;
  const auto t0 = Clock::now();
  std::optional<Process> proc = launch(ctx, spec, box, devnull.get(), out_w.get(), err_w.get(), &r.start_error,
                                       &r.box_join);
  out_w.reset();
  err_w.reset();
  devnull.reset();
  if (!proc) return r;
  r.started = true;
  r.pid = proc->id();
  bool reaped = false;
  // Once reaped, the pid may be recycled (even for a sibling run_process in
  // another thread); basic_process's destructor would waitpid+SIGKILL that pid.
  struct DetachWhenReaped {
    std::optional<Process>& p;
    const bool& reaped;
    ~DetachWhenReaped() {
      if (reaped) p->detach();
    }
  } detach_guard{proc, reaped};

  Stream out(ctx, out_r.release(), &r.out, &r.out_total);
  Stream err(ctx, err_r.release(), &r.err, &r.err_total);
  asio::steady_timer timeout_timer(ctx), cancel_timer(ctx), drain_timer(ctx);
  // The interrupt flag is set only by its signal handler, which also makes the interrupt
  // pipe readable (interrupt_wake.h): wait for that with the child, no periodic wake-up.
  // The slow poll stays as a backstop (a flag stored without the signal); other cancel
  // flags (tests, callers' own) are polled every 10 ms as before.
  const int wake_fd = cancel != nullptr ? interrupt_wake_fd(cancel) : -1;
  std::optional<asio::posix::stream_descriptor> wake;
  if (wake_fd >= 0) {
    const int fd = ::fcntl(wake_fd, F_DUPFD_CLOEXEC, 3);  // the descriptor object closes its own copy
    if (fd >= 0) wake.emplace(ctx, fd);
  }

  auto close_pipes = [&] {
    bp::error_code ignored;
    out.pipe.close(ignored);
    err.pipe.close(ignored);
  };
  // Set once the child is reaped and both pipes are done. The cancel poll must
  // check it: a timer whose wait already completed is not aborted by cancel(),
  // so without it a queued poll re-arms itself forever and ctx.run() never returns.
  bool finished = false;
  auto maybe_finish = [&] {
    if (reaped && !out.open && !err.open) {
      finished = true;
      timeout_timer.cancel();
      cancel_timer.cancel();
      drain_timer.cancel();
      if (wake) {
        bp::error_code ignored;
        wake->cancel(ignored);
      }
    }
  };
  auto kill_child = [&] {
    bp::error_code ignored;
    proc->terminate(ignored);  // kill(pid, SIGKILL): the direct child only; not yet reaped
  };

  std::function<void(Stream&)> read_more = [&](Stream& s) {
    s.pipe.async_read_some(asio::buffer(s.buf), [&, sp = &s](const bp::error_code& e, std::size_t n) {
      if (n > 0) {
        *sp->total += n;
        const std::size_t room = spec.max_capture > sp->keep->size() ? spec.max_capture - sp->keep->size() : 0;
        sp->keep->append(sp->buf.data(), std::min(n, room));
      }
      if (e) {  // eof, or closed by the drain bound
        sp->open = false;
        bp::error_code ignored;
        sp->pipe.close(ignored);
        maybe_finish();
        return;
      }
      read_more(*sp);
    });
  };
  read_more(out);
  read_more(err);

  proc->async_wait([&](const bp::error_code& e, int) {
    reaped = true;
    r.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
    if (!e) {
      const int status = proc->native_exit_code();
      if (WIFEXITED(status)) {
        r.exited = true;
        r.exit_code = WEXITSTATUS(status);
      } else if (WIFSIGNALED(status)) {
        r.term_signal = WTERMSIG(status);
      }
    }  // else: waitpid failed (ECHILD when SIGCHLD is SIG_IGN): status unknown
    timeout_timer.cancel();
    if (out.open || err.open) {
      drain_timer.expires_after(spec.drain_after_exit);
      drain_timer.async_wait([&](const bp::error_code& te) {
        if (te) return;
        if (out.open || err.open) {
          r.drain_timed_out = true;  // a grandchild still holds a pipe: stop reading
          close_pipes();
        }
      });
    }
    maybe_finish();
  });

  if (spec.timeout) {
    timeout_timer.expires_after(*spec.timeout);
    timeout_timer.async_wait([&](const bp::error_code& te) {
      if (te || reaped) return;
      r.timed_out = true;
      kill_child();
    });
  }

  auto on_cancel = [&] {
    if (!reaped) {
      r.cancelled = true;
      kill_child();
    } else {
      close_pipes();  // cancelled while draining: stop now
    }
  };
  const auto poll_every = wake ? kCancelBackstop : 10ms;
  std::function<void()> poll_cancel = [&] {
    cancel_timer.expires_after(poll_every);
    cancel_timer.async_wait([&](const bp::error_code& te) {
      if (te || finished) return;
      if (!cancel->load()) {
        poll_cancel();
        return;
      }
      on_cancel();
    });
  };
  if (cancel != nullptr) {
    if (cancel->load()) {
      on_cancel();
    } else {
      poll_cancel();
      if (wake)
        wake->async_wait(asio::posix::stream_descriptor::wait_read, [&](const bp::error_code& we) {
          if (we || finished || !cancel->load()) return;  // cancelled by maybe_finish; the backstop covers the rest
          on_cancel();
        });
    }
  }

  ctx.run();
  return r;
}

}  // namespace breakout
