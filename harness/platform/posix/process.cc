// POSIX run_process (Boost.Process v2 launcher + Boost.Asio drain) and Containment (cgroup v2 / nonce scan).
//
// How the pieces map onto Boost 1.81:
//  * process::v2::posix::default_launcher forks and execs; we call its
//    (executor, error_code&, ...) overload: the (ExecutionContext&, error_code&)
//    overload in 1.81 drops the error_code and throws instead.
//  * process::v2::process_stdio wires /dev/null + our two pipes onto 0/1/2.
//  * ChildSetup below is our own initializer. Boost 1.81 calls every
//    initializer's on_exec_setup in the forked child, in argument order, after
//    notify_fork(fork_child) and before it closes fds and calls execve; a
//    non-empty error_code returned there skips execve, writes errno to Boost's
//    CLOEXEC error pipe (so the parent gets it as `ec`) and calls on_exec_error.
//  * process::v2::basic_process waits through a pidfd (pidfd_open, Linux >= 5.3)
//    registered with Asio: async_wait, no SIGCHLD handler. terminate() is
//    kill(pid, SIGKILL) on the direct child only.
//  * stdout/stderr are asio::readable_pipe read concurrently; the timeout, the
//    cancel poll and the post-exit drain bound are asio::steady_timer.
//
// Where plain POSIX is used instead, and why (Boost 1.81 specifics):
//  * fd hygiene: posix/detail/close_handles.ipp's Linux close_all() compares each
//    whitelist entry with itself (`next = whitelist[idx]`), so the gap between
//    fd 2 and Boost's own error-pipe fd is never closed: every inheritable fd
//    numbered below that pipe leaked into the child (seen with `ls /proc/self/fd`).
//    ChildSetup marks every fd >= 3 close-on-exec itself (close_range
//    CLOSE_RANGE_CLOEXEC; getdents64 on /proc/self/fd as fallback). Boost's own
//    error pipe is already CLOEXEC, so it still reports exec failures.
//  * exec failure: after on_exec_error the 1.81 launcher calls ::exit(), which
//    runs atexit handlers and static destructors of the forked copy of a
//    multithreaded harness. ChildSetup::on_exec_error calls _exit(127) first.
//    (1.81 checks on_exec_error/on_error with a 5-argument expression but calls
//    it with 4 arguments, hence the variadic template.)
//  * failed starts: when the child fails before execve the launcher returns an
//    empty process handle and forgets the pid; we reap launcher.pid ourselves.
//  * pipes and /dev/null: Boost 1.81's process_io_binding creates pipes with
//    plain pipe() (not O_CLOEXEC) and opens /dev/null without O_CLOEXEC, so
//    another thread's concurrent fork could inherit them. We create them with
//    pipe2(O_CLOEXEC)/open(O_CLOEXEC) and hand Boost the raw fds.
//  * argv[0]: Boost's default argv building puts the resolved executable path in
//    argv[0]; we pass a ready `const char**` so the child sees argv[0] as given.
//  * PATH lookup: process::v2::environment::find_executable takes an environment
//    view, not our "NAME=value" vector; the lookup is a few lines (below).
#ifndef BOOST_PROCESS_V2_SEPARATE_COMPILATION
#define BOOST_PROCESS_V2_SEPARATE_COMPILATION 1
#endif
#ifndef BOOST_PROCESS_USE_STD_FS
#define BOOST_PROCESS_USE_STD_FS 1
#endif

#include "harness/platform/process.h"

// Boost 1.81's process/v2 headers use these without including them.
#include <boost/optional.hpp>
#include <boost/type_traits.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2/posix/default_launcher.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "harness/core/error.h"
#include "harness/platform/posix/spawn.h"
#include "harness/platform/posix/unique_fd.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

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

// Pids (other than ours) whose cmdline or environ contains `nonce`. With
// `kill_them`, each is SIGKILLed through a pidfd opened before reading its
// files, so a recycled pid is never signalled.
std::vector<int> nonce_scan(const std::string& nonce, bool kill_them) {
  std::vector<int> found;
  if (nonce.size() < 8) return found;  // a short token would match strangers
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  const int self = static_cast<int>(::getpid());
  while (const dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || pid <= 0 || pid == self) continue;
    UniqueFd pidfd(kill_them ? pidfd_open_compat(static_cast<int>(pid)) : -1);
    const std::string base = "/proc/" + std::string(e->d_name);
    if (!file_contains(base + "/cmdline", nonce) && !file_contains(base + "/environ", nonce)) continue;
    found.push_back(static_cast<int>(pid));
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
// Child-side setup (runs between fork and execve: async-signal-safe only)

// Marks every fd >= `low` close-on-exec.
int mark_cloexec_from(int low) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, static_cast<unsigned>(low), ~0U, CLOSE_RANGE_CLOEXEC) == 0) return 0;
#endif
  // Kernel < 5.11: walk /proc/self/fd with raw getdents64 (no malloc, no DIR*).
  const int dfd = ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, dfd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        // struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
        unsigned short reclen;
        std::memcpy(&reclen, buf + off + 16, sizeof reclen);
        const char* name = buf + off + 19;
        int fd = 0;
        bool numeric = *name != '\0';
        for (const char* p = name; *p; ++p) {
          if (*p < '0' || *p > '9') {
            numeric = false;
            break;
          }
          fd = fd * 10 + (*p - '0');
        }
        if (numeric && fd >= low && fd != dfd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        off += reclen;
      }
    }
    ::close(dfd);
    return 0;
  }
  // No /proc either: every possible fd number.
  struct rlimit rl {};
  rlim_t max = 65536;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1u << 20))
    max = rl.rlim_cur;
  for (rlim_t fd = static_cast<rlim_t>(low); fd < max; ++fd) ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  return 0;
}

// Which child setup step failed (shared page, written by the child).
enum ChildStep : int { kStepStdio = 0, kStepCgroup, kStepSignals, kStepChdir, kStepFds, kStepExec, kStepTty };

const char* step_name(int step) {
  switch (step) {
    case kStepStdio: return "dup2 of stdin/stdout/stderr";
    case kStepCgroup: return "joining the containment cgroup";
    case kStepSignals: return "resetting signals";
    case kStepChdir: return "chdir to cwd";
    case kStepFds: return "marking inherited fds close-on-exec";
    case kStepTty: return "setsid + TIOCSCTTY on the controlling tty";
    default: return "execve";
  }
}

// Boost.Process v2 initializer; must come after process_stdio in the launcher's
// argument list (its dup2s run first, then this).
struct ChildSetup {
  int cgroup_procs_fd = -1;
  const char* cwd = nullptr;
  volatile int* step = nullptr;  // MAP_SHARED page, read by the parent on failure
  // LaunchSpec::inherit_dirs: {parent fd (CLOEXEC, >= 3), child number}.
  int leak_from[kMaxInheritedDirs] = {};
  int leak_to[kMaxInheritedDirs] = {};
  std::size_t leaks = 0;
  bool make_ctty = false;  // LaunchSpec::controlling_tty: stdin is that tty, make it ours

  bp::error_code on_exec_setup(bp::posix::default_launcher&, const std::filesystem::path&,
                               const char* const*) {
    auto fail = [] { return bp::error_code(errno != 0 ? errno : EIO, bp::system_category()); };
    *step = kStepCgroup;
    if (cgroup_procs_fd >= 0) {
      // Writing "0" moves the writing process into the cgroup, before execve,
      // so everything the spawner does afterwards is already inside.
      ssize_t n;
      do n = ::write(cgroup_procs_fd, "0", 1);
      while (n < 0 && errno == EINTR);
      if (n != 1) return fail();
    }
    *step = kStepSignals;
    // The harness's handlers vanish at exec, but ignored dispositions and the
    // blocked mask would be inherited by the spawner: give it a clean slate.
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);  // EINVAL for reserved ones: fine
    if (make_ctty) {  // credentials(7): a new session, then stdin becomes its controlling terminal
      *step = kStepTty;
      if (::setsid() < 0 || ::ioctl(0, TIOCSCTTY, 0) != 0) return fail();
    }
    *step = kStepChdir;
    if (cwd != nullptr && ::chdir(cwd) != 0) return fail();
    *step = kStepFds;
    if (mark_cloexec_from(3) != 0) return fail();
    for (std::size_t i = 0; i < leaks; ++i) {  // dup2 clears FD_CLOEXEC on the copy
      if (leak_from[i] == leak_to[i]) {
        if (::fcntl(leak_to[i], F_SETFD, 0) != 0) return fail();
      } else if (::dup2(leak_from[i], leak_to[i]) < 0) {
        return fail();
      }
    }
    *step = kStepExec;
    return {};
  }

  // Called in the child after a failed setup/execve (the errno has already been
  // sent to the parent). 1.81 would call ::exit() next; leave without atexit.
  template <typename... Args>
  void on_exec_error(Args&&...) {
    ::_exit(127);
  }
};

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
    *exe = arg0;  // execve reports a missing/unrunnable file through Boost's error pipe
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

}  // namespace

// ---------------------------------------------------------------------------
// Containment

Containment::Containment(std::string label, std::string nonce)
    : label_(std::move(label)), nonce_(std::move(nonce)) {
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
}

Containment::~Containment() {
  kill_all();
  if (procs_fd_ >= 0) ::close(procs_fd_);
  if (cgroup_dir_.empty()) return;
  // EBUSY is possible for a moment after the kill (exiting tasks still counted).
  const auto deadline = Clock::now() + 2s;
  while (::rmdir(cgroup_dir_.c_str()) != 0 && errno == EBUSY && Clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  // The shared parent goes when the last attempt's box goes (ENOTEMPTY otherwise).
  const std::string parent = std::filesystem::path(cgroup_dir_).parent_path().string();
  ::rmdir(parent.c_str());
}

int Containment::kill_all() noexcept {
  try {
    std::set<int> seen;
    const auto deadline = Clock::now() + 2s;
    if (!cgroup_dir_.empty()) {
      const std::string procs = cgroup_dir_ + "/cgroup.procs";
      for (int pid : read_pids(procs)) seen.insert(pid);
      // cgroup.kill (Linux >= 5.14) kills the whole subtree atomically, forks
      // in flight included. Older kernels: SIGKILL whatever is listed, again
      // and again, until the list stays empty.
      const bool have_kill = write_file(cgroup_dir_ + "/cgroup.kill", "1");
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
    }
    // The nonce scan: the whole mechanism without a cgroup, and a second net
    // for anything that left the cgroup (a root probe can write cgroup.procs).
    for (;;) {
      const std::vector<int> pids = nonce_scan(nonce_, /*kill_them=*/true);
      if (pids.empty()) break;
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
  for (int pid : nonce_scan(nonce_, /*kill_them=*/false)) live.insert(pid);
  return static_cast<int>(live.size());
}

std::string Containment::mechanism() const {
  return cgroup_dir_.empty() ? "nonce-scan" : "cgroup2 " + cgroup_dir_;
}

// ---------------------------------------------------------------------------
// run_process

namespace {

using Process = bp::basic_process<asio::io_context::executor_type>;

// Forks and execs spec.argv inside `box` with in_fd/out_fd/err_fd as its
// stdin/stdout/stderr (the caller closes its copies afterwards). Returns the
// process, or nullopt with *error set (a child that failed before execve is
// reaped here).
std::optional<Process> launch(asio::io_context& ctx, const LaunchSpec& spec, Containment* box, int in_fd,
                              int out_fd, int err_fd, std::string* error) {
  std::string exe;
  if (spec.argv.empty()) {
    *error = "empty argv";
    return std::nullopt;
  }
  if (!resolve_executable(spec.argv[0], spec.env, &exe, error)) return std::nullopt;
  auto sys_fail = [error](const std::string& step) {
    *error = step + ": " + std::strerror(errno);
    return std::nullopt;
  };

  std::vector<const char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  std::vector<const char*> envp;
  for (const std::string& e : spec.env) envp.push_back(e.c_str());
  envp.push_back(nullptr);

  // One shared page to learn which child step failed.
  void* page = ::mmap(nullptr, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return sys_fail("mmap");
  struct Unmap {
    void* p;
    ~Unmap() { ::munmap(p, sizeof(int)); }
  } unmap{page};
  volatile int* step = static_cast<volatile int*>(page);
  *step = kStepStdio;

  bp::posix::default_launcher launcher;
  launcher.env = envp.data();
  ChildSetup setup{box != nullptr ? box->cgroup_procs_fd() : -1, spec.cwd.empty() ? nullptr : spec.cwd.c_str(),
                   step};
  setup.make_ctty = !spec.controlling_tty.empty();
  // Deliberate leaks (class fd-leak). Parent copies sit above every target number,
  // so no dup2 onto a target clobbers another leak's source.
  std::vector<UniqueFd> leaked;
  if (spec.inherit_dirs.size() > kMaxInheritedDirs) {
    *error = "too many inherit_dirs";
    return std::nullopt;
  }
  int highest = 2;
  for (const auto& d : spec.inherit_dirs) highest = std::max(highest, d.number);
  for (const auto& d : spec.inherit_dirs) {
    if (d.number < 3) {
      *error = "inherit_dirs: fd number " + std::to_string(d.number) + " is below 3";
      return std::nullopt;
    }
    UniqueFd dir(::open(d.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0) return sys_fail("open inherited dir " + d.path);
    UniqueFd high(::fcntl(dir.get(), F_DUPFD_CLOEXEC, highest + 1));
    if (high.get() < 0) return sys_fail("fcntl F_DUPFD");
    setup.leak_from[setup.leaks] = high.get();
    setup.leak_to[setup.leaks] = d.number;
    ++setup.leaks;
    leaked.push_back(std::move(high));
  }
  std::optional<Process> proc;
  bp::error_code ec;
  try {
    bp::process_stdio stdio{in_fd, out_fd, err_fd};
    const char** args = argv.data();
    proc.emplace(launcher(ctx.get_executor(), ec, std::filesystem::path(exe), args, stdio, setup));
  } catch (const std::exception& e) {
    // E.g. pidfd_open failing after a successful fork: do not leave the child behind.
    if (launcher.pid > 0) {
      ::kill(launcher.pid, SIGKILL);
      while (::waitpid(launcher.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    *error = "launch " + exe + ": " + e.what();
    return std::nullopt;
  }
  if (ec) {
    if (launcher.pid > 0) {  // forked, but the child failed before/at execve and _exit()ed
      while (::waitpid(launcher.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    *error = std::string(step_name(*step)) + " for " + exe + ": " + ec.message();
    if (*step == kStepChdir) *error += " (cwd " + spec.cwd + ")";
    return std::nullopt;
  }
  return proc;
}

}  // namespace

int spawn_with_stdio(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd, int err_fd,
                     std::string* error) {
  asio::io_context ctx;
  std::optional<Process> proc = launch(ctx, spec, box, in_fd, out_fd, err_fd, error);
  if (!proc) return -1;
  const int pid = proc->id();
  proc->detach();  // the caller reaps it with waitpid
  return pid;
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
  std::optional<Process> proc = launch(ctx, spec, box, devnull.get(), out_w.get(), err_w.get(), &r.start_error);
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

  std::function<void()> poll_cancel = [&] {
    cancel_timer.expires_after(10ms);
    cancel_timer.async_wait([&](const bp::error_code& te) {
      if (te || finished) return;
      if (!cancel->load()) {
        poll_cancel();
        return;
      }
      if (!reaped) {
        r.cancelled = true;
        kill_child();
      } else {
        close_pipes();  // cancelled while draining: stop now
      }
    });
  };
  if (cancel != nullptr) {
    if (cancel->load()) {
      r.cancelled = true;
      kill_child();
    } else {
      poll_cancel();
    }
  }

  ctx.run();
  return r;
}

}  // namespace breakout
