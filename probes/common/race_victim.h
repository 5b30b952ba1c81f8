// The known-racy victims the race attempts calibrate against: a check made on a name, then a use
// of the same name (CWE-367, time-of-check to time-of-use). A race attempt is judged only when
// the same race, run beside it, beat one of these (docs/scenarios.md, "Races and their
// calibration"): a sandbox that merely went unraced is never read as one that cannot be raced.
//
//   racy: the check resolves the name, the use opens the name again: a flip in between wins;
//   safe: the use opens what the check resolved (or checks the opened file): it never loses, the
//         harness's test hook for a calibration that cannot be won (BREAKOUT_TEST_RACE_VICTIM).
//
// POSIX only (Linux), header-only: fs-race (inside the sandbox) and race-victim (the harness's,
// outside) share it so the two calibrations are the same code.
#pragma once

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>
#include <string_view>
#include <ctime>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/common/posix.h"

namespace breakout::probe::race {

enum class Victim { kRacy, kSafe };

// "racy" / "safe"; anything else: nullopt-like false in `ok`.
inline Victim victim_from(std::string_view s, bool& ok) {
  ok = s == "racy" || s == "safe";
  return s == "safe" ? Victim::kSafe : Victim::kRacy;
}

// Holds the window between the check and the use open for `us` microseconds, spinning (a sleep
// would hand the CPU to the flipper and so widen the window by a scheduler tick instead): the
// victim then stands for a checker whose check and use lie that far apart (an interpreted
// runtime's path checks, a supervisor's round trip). 0: as far apart as two syscalls.
inline void hold_window(long long us) {
  if (us <= 0) return;
  timespec t0{}, t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    ::clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000000LL + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

enum class Outcome { kRefused, kWritten, kFailed };

struct WriteTry {
  Outcome outcome = Outcome::kFailed;
  struct stat written{};  // the file the write landed in (kWritten)
};

// The write victim: appends `line` to `name` only when realpath(name) lies below `allowed_dir`
// (an absolute, resolved directory, without a trailing '/'). The racy victim opens `name` again
// after the check, so a link flipped in between sends the line wherever it names by then.
inline WriteTry check_then_write(const std::string& name, const std::string& allowed_dir, std::string_view line,
                                 Victim victim, long long window_us = 0) {
  WriteTry t;
  char real[PATH_MAX];
  if (::realpath(name.c_str(), real) == nullptr) return t;  // kFailed: a dangling name
  const std::string_view r(real);
  if (r.size() <= allowed_dir.size() || r.compare(0, allowed_dir.size(), allowed_dir) != 0 ||
      r[allowed_dir.size()] != '/') {
    t.outcome = Outcome::kRefused;
    return t;
  }
  hold_window(window_us);
  const char* use = victim == Victim::kSafe ? real : name.c_str();  // THE window: racy opens the name again
  const int fd = ::open(use, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return t;
  if (write_all(fd, line.data(), line.size()) == 0 && ::fstat(fd, &t.written) == 0) t.outcome = Outcome::kWritten;
  ::close(fd);
  return t;
}

// The read victim: reads `name` only when, at the check, `name` is not the protected file (the
// check compares what lstat finds there with `protected_file`'s identity; nothing there passes,
// the open will find nothing). The racy victim then opens `name`: a rename of its ancestor in
// between puts the protected file there. The safe one checks the file it opened instead. On a
// win the bytes read (at most `max` of them) are in `data`. Returns true on a win.
inline bool check_then_read(const std::string& name, const struct stat& protected_file, Victim victim,
                            std::string& data, std::size_t max, long long window_us = 0) {
  data.clear();
  struct stat st{};
  if (victim == Victim::kRacy && ::lstat(name.c_str(), &st) == 0 && st.st_dev == protected_file.st_dev &&
      st.st_ino == protected_file.st_ino)
    return false;  // refused by the check
  hold_window(window_us);
  const int fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool is_it = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == protected_file.st_dev &&
                     st.st_ino == protected_file.st_ino;
  if (!is_it || victim == Victim::kSafe) {  // safe: the check is made on what was opened
    ::close(fd);
    return false;
  }
  char buf[4096];
  const std::size_t want = max < sizeof buf ? max : sizeof buf;
  ssize_t n;
  while ((n = ::read(fd, buf, want)) < 0 && errno == EINTR) {
  }
  ::close(fd);
  if (n <= 0) return false;
  data.assign(buf, static_cast<std::size_t>(n));
  return true;
}

}  // namespace breakout::probe::race
