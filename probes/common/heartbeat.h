// The heartbeat the lifetime and timeout-kill probes leave behind: a process
// appends "beat <n> <pid>\n" to a file every 25 ms until its own deadline. The
// harness watches the file from outside: a file still growing after the
// spawner returned (or was killed) proves a process outlived it.
//
// POSIX only (Linux).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "probes/common/posix.h"

namespace breakout::probe {

inline constexpr std::int64_t kBeatIntervalMs = 25;

// Appends one beat line; reopens the file every time (O_APPEND) so that the
// harness may rotate, truncate or delete it without the beater noticing.
inline void beat_once(const std::string& file, std::uint64_t n) {
  char line[64];
  int len = std::snprintf(line, sizeof line, "beat %llu %ld\n", static_cast<unsigned long long>(n),
                          static_cast<long>(::getpid()));
  int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) return;  // keep beating: a beater that gives up would hide an escape
  (void)write_all(fd, line, static_cast<std::size_t>(len));
  ::close(fd);
}

// Beats until the monotonic clock reaches `deadline_ms` (see now_ms()), then
// _exits(0). The deadline is the safety bound: every beater stops by itself.
[[noreturn]] inline void beat_until(const std::string& file, std::int64_t deadline_ms) {
  for (std::uint64_t n = 1; now_ms() < deadline_ms; ++n) {
    beat_once(file, n);
    sleep_ms(kBeatIntervalMs);
  }
  ::_exit(0);
}

}  // namespace breakout::probe
