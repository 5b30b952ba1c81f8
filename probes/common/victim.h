// A victim process: holds a secret in static memory, on the heap and in its
// environment, records every catchable signal and its TracerPid, until its
// deadline. Used by breakout-probe-victim (started by the HARNESS outside the
// sandbox, class process-reach) and by proc-reach's own child (the control).
//
// Status lines (fd `status_fd`, one write each, async-signal-safe):
//   "beat <n> tracer=<pid>\n"  every 25 ms; tracer is /proc/self/status TracerPid
//   "signal <n><suffix>\n"     from the handler of SIGTERM/INT/HUP/USR1/USR2/CONT
// TERM, INT and HUP end the victim after recording. The suffix lets the own
// victim print its token (the harness's victim must not: its status file is
// scanned for the secret).
//
// POSIX only (Linux).
#pragma once

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "probes/common/posix.h"

namespace breakout::probe {

inline char g_victim_secret[160];   // static copy (.bss of the victim)
inline int g_victim_status_fd = -1;
inline char g_victim_suffix[160];

inline void victim_on_signal(int sig) {
  char line[224];
  int n = 0;
  const char* head = "signal ";
  for (const char* p = head; *p; ++p) line[n++] = *p;
  char digits[8];
  int d = 0;
  for (int v = sig; v > 0 || d == 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
  while (d > 0) line[n++] = digits[--d];
  for (const char* p = g_victim_suffix; *p && n < 220; ++p) line[n++] = *p;
  line[n++] = '\n';
  (void)!::write(g_victim_status_fd, line, static_cast<std::size_t>(n));
  if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) ::_exit(0);
}

inline long tracer_pid() {
  int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char* t = std::strstr(buf, "TracerPid:");
  return t ? std::strtol(t + 10, nullptr, 10) : -1;
}

// Never returns: beats until `deadline_ms` (now_ms() clock), then _exit(0). Once its handlers are
// installed it writes one byte to `ready_fd` and closes it (when >= 0): the parent's sign that a
// signal now reaches a handler (proc(5)'s SigCgt says so on Linux, but gVisor's status has no such line).
[[noreturn]] inline void run_victim(const std::string& secret, int status_fd, const std::string& signal_suffix,
                                    std::int64_t deadline_ms, int ready_fd = -1) {
  std::snprintf(g_victim_secret, sizeof g_victim_secret, "%s", secret.c_str());
  std::snprintf(g_victim_suffix, sizeof g_victim_suffix, "%s", signal_suffix.c_str());
  volatile char* heap = static_cast<char*>(std::malloc(secret.size() + 1));  // a heap copy too
  if (heap) std::memcpy(const_cast<char*>(heap), secret.c_str(), secret.size() + 1);
  ::setenv("BREAKOUT_VICTIM_SECRET", secret.c_str(), 1);
  g_victim_status_fd = status_fd;
  struct sigaction sa {};
  sa.sa_handler = victim_on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGCONT}) ::sigaction(sig, &sa, nullptr);
  if (ready_fd >= 0) {
    (void)write_all(ready_fd, "r", 1);
    ::close(ready_fd);
  }
  for (std::uint64_t n = 1; now_ms() < deadline_ms; ++n) {
    char line[64];
    int len = std::snprintf(line, sizeof line, "beat %llu tracer=%ld\n", static_cast<unsigned long long>(n), tracer_pid());
    (void)write_all(status_fd, line, static_cast<std::size_t>(len));
    sleep_ms(25);
  }
  ::_exit(0);
}

}  // namespace breakout::probe
