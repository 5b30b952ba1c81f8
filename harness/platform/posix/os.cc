// POSIX implementation of the host facts in platform/os.h.
#include "harness/platform/os.h"
#include "harness/platform/posix/interrupt_wake.h"

#include <fcntl.h>

#include <errno.h>
#include <signal.h>
#include <linux/fs.h>  // RENAME_EXCHANGE
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace breakout {

namespace fs = std::filesystem;

std::optional<std::string> find_on_path(const std::string& tool) {
  if (tool.find('/') != std::string::npos)
    return ::access(tool.c_str(), X_OK) == 0 ? std::optional(tool) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / tool;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return std::nullopt;
}

std::optional<std::string> find_executable(const std::string& program, const std::string& search_path) {
  auto runnable = [](const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos) return runnable(program) ? std::optional(program) : std::nullopt;
  std::stringstream dirs(search_path);
  for (std::string dir; std::getline(dirs, dir, ':');) {  // an empty entry is the cwd (execvp(3))
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (runnable(candidate)) return candidate.string();
  }
  return std::nullopt;
}

std::string own_search_path() {
  const char* path = std::getenv("PATH");
  return path ? path : "";
}

std::string platform_name() { return "linux"; }

std::string kernel_release() {
  struct utsname u {};
  return ::uname(&u) == 0 ? u.release : "unknown";
}

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

fs::path self_exe_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

bool is_tty(int fd) { return ::isatty(fd) == 1; }

long self_pid() { return static_cast<long>(::getpid()); }

bool exchange_names(const std::filesystem::path& a, const std::filesystem::path& b) {
  return ::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0;
}

std::optional<std::string> run_unsupported_reason() { return std::nullopt; }

std::string default_suite_name() { return "default"; }

std::map<std::string, std::string> caller_base_env(const fs::path& fake_home) {
  return {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, {"HOME", fake_home.string()}};
}

namespace {
std::atomic<bool>* g_interrupted = nullptr;
// interrupt_wake.h: written once by the first signal, never read, so readable from then on.
std::atomic<int> g_wake_read{-1}, g_wake_write{-1};
extern "C" void on_interrupt(int sig) {
  if (g_interrupted && !g_interrupted->exchange(true)) {  // first: unwind and clean up
    const int saved = errno;                              // write(2) is async-signal-safe (signal-safety(7))
    const int fd = g_wake_write.load();
    if (fd >= 0 && ::write(fd, "!", 1) < 0) {
    }  // full or closed: the pollers' backstop still sees the flag
    errno = saved;
    return;
  }
  ::signal(sig, SIG_DFL);                                        // second: give up now
  ::raise(sig);
}
}  // namespace

void install_interrupt_flag(std::atomic<bool>* flag) {
  if (g_wake_read.load() < 0) {
    int p[2];
    // O_NONBLOCK: the handler's write never blocks (one byte; the pipe is never full).
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0) {
      g_wake_write = p[1];
      g_wake_read = p[0];
    }
  }
  g_interrupted = flag;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);
}

int interrupt_wake_fd(const std::atomic<bool>* flag) {
  return flag != nullptr && flag == g_interrupted ? g_wake_read.load() : -1;
}

}  // namespace breakout
