// Small POSIX helpers the Linux probes share: complete writes, monotonic time,
// sleeping, and detaching a process from the spawner's stdio and fds.
//
// POSIX only (Linux): not part of the mingw-portable set.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <ctime>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace breakout::probe {

inline std::int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Sleeps `ms` milliseconds, resuming after signals (a probe's timing must not
// depend on what the sandbox sends it).
inline void sleep_ms(std::int64_t ms) {
  if (ms <= 0) return;
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// Waits (bounded, 10 ms ticks) for `pid` to change state; returns waitpid's status, or -1 when
// it did not within `timeout_ms` or waitpid failed.
inline int wait_child(pid_t pid, int flags, int timeout_ms) {
  for (int waited = 0; waited < timeout_ms; waited += 10) {
    int st = 0;
    const pid_t r = ::waitpid(pid, &st, flags | WNOHANG);
    if (r == pid) return st;
    if (r < 0) return -1;
    sleep_ms(10);
  }
  return -1;
}

// Writes all `n` bytes: retries short writes and EINTR, and waits (poll) when the
// fd is non-blocking and full. Returns 0 or the errno of the failing write.
inline int write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w > 0) {
      p += w;
      n -= static_cast<std::size_t>(w);
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd pfd{fd, POLLOUT, 0};
      ::poll(&pfd, 1, 1000);
    } else {
      return w < 0 ? errno : EIO;
    }
  }
  return 0;
}

// Makes the calling process hold nothing of its spawner's: stdin/stdout/stderr
// become /dev/null (or are closed when /dev/null cannot be opened) and every
// other fd is closed. Call in a forked child before it runs on its own, so the
// spawner's pipes reach EOF when the probe exits.
inline void detach_stdio_and_close_fds() {
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd <= 2; ++fd) {
    if (null_fd >= 0 && null_fd != fd) {
      ::dup2(null_fd, fd);  // dup2 clears FD_CLOEXEC on the copy
    } else if (null_fd < 0) {
      ::close(fd);
    }
  }
  if (null_fd > 2) ::close(null_fd);
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
  // Old kernel or filtered syscall: close by number (bounded).
  rlimit rl{};
  long max_fd = (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
                    ? static_cast<long>(rl.rlim_cur)
                    : 65536;
  if (max_fd > (1L << 20)) max_fd = 1L << 20;
  for (long fd = 3; fd < max_fd; ++fd) ::close(static_cast<int>(fd));
}

}  // namespace breakout::probe
