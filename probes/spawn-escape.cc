// breakout-probe-spawn-escape: leaves a process behind that tries to outlive the sandbox.
//
//   breakout-probe-spawn-escape --technique T --heartbeat FILE [--lifetime-ms 30000] [--wait-beats 3]
//
// Starts a beater that appends "beat <n> <pid>\n" to FILE every 25 ms until
// --lifetime-ms (100..600000) after the probe started, then stops by itself
// (the safety bound). The beater's stdin/stdout/stderr are /dev/null and every
// other fd is closed, so it holds none of the spawner's pipes: only the
// heartbeat file shows it is alive. T says how it tries to escape:
//   background          plain fork; the child beats and is orphaned when the probe exits
//   double-fork-setsid  fork, setsid, fork again, the middle process exits (classic daemon)
//   ignore-signals      plain fork; the child ignores SIGHUP, SIGTERM, SIGINT, SIGPIPE
//   clear-pdeathsig     prctl(PR_SET_PDEATHSIG, 0) in the probe and its children,
//                       then the double-fork-setsid pattern
//   new-pgrp            plain fork; the child moves to its own process group (setpgid(0,0))
// The probe waits (max 6 s) until FILE has --wait-beats (1..1000) new lines since
// it started, prints its report and exits, leaving the beater running. The bound is
// for sandboxes whose every syscall is slow (gVisor on its ptrace platform took 1.5 s
// for three beats, by hand, and missed 2 s in a run under load); a beater that runs is
// seen in milliseconds elsewhere.
//
// Result: ok=true when the beats were seen (the beater runs); fields technique,
// heartbeat, lifetime_ms, beats_seen, child_pid (the probe's direct child, in
// the probe's pid namespace), waited_ms. Whether the beater outlived the sandbox
// is the harness's call: FILE still growing after the spawner returned.
// Exit: 0 ok, 1 failed attempt (fork failed or no beats in 6 s), 64 usage error.
//
// POSIX only (Linux).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <string>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probes/common/args.h"
#include "probes/common/heartbeat.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-spawn-escape --technique T --heartbeat FILE [--lifetime-ms 30000] [--wait-beats 3]\n"
    "  T: background double-fork-setsid ignore-signals clear-pdeathsig new-pgrp\n";

// Lines in FILE after byte `from` (0 when it cannot be read).
long count_lines_after(const std::string& file, off_t from) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  long lines = 0;
  char buf[8192];
  ssize_t n;
  if (::lseek(fd, from, SEEK_SET) == from)
    while ((n = ::read(fd, buf, sizeof buf)) > 0)
      for (ssize_t i = 0; i < n; ++i) lines += buf[i] == '\n';
  ::close(fd);
  return lines;
}

off_t file_size(const std::string& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  off_t size = ::lseek(fd, 0, SEEK_END);
  ::close(fd);
  return size < 0 ? 0 : size;
}

[[noreturn]] void become_beater(const std::string& file, std::int64_t deadline_ms) {
  detach_stdio_and_close_fds();
  beat_until(file, deadline_ms);
}

// The daemon pattern: in a forked child, setsid, fork again and let the middle exit.
[[noreturn]] void double_fork_and_beat(const std::string& file, std::int64_t deadline_ms, bool clear_pdeathsig) {
  ::setsid();
  pid_t pid = ::fork();
  if (pid < 0) ::_exit(1);
  if (pid > 0) ::_exit(0);
  if (clear_pdeathsig) ::prctl(PR_SET_PDEATHSIG, 0);
  become_beater(file, deadline_ms);
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage,
            {{"technique", Args::kValue}, {"heartbeat", Args::kValue}, {"lifetime-ms", Args::kValue},
             {"wait-beats", Args::kValue}});
  const std::string technique = args.require("technique");
  const std::string heartbeat = args.require("heartbeat");
  const std::int64_t lifetime = args.get_int("lifetime-ms", 100, 600000, 30000);
  const long wait_beats = static_cast<long>(args.get_int("wait-beats", 1, 1000, 3));
  if (technique != "background" && technique != "double-fork-setsid" && technique != "ignore-signals" &&
      technique != "clear-pdeathsig" && technique != "new-pgrp")
    args.usage_error("unknown --technique '" + technique + "'");

  const std::int64_t start = now_ms();
  const std::int64_t deadline = start + lifetime;
  const off_t offset = file_size(heartbeat);  // count only beats written from now on

  ProbeReport r("spawn-escape");
  r.set("technique", technique);
  r.set("heartbeat", heartbeat);
  r.set("lifetime_ms", static_cast<long long>(lifetime));

  const bool clear = technique == "clear-pdeathsig";
  if (clear) ::prctl(PR_SET_PDEATHSIG, 0);
  std::fflush(nullptr);  // nothing buffered may be written twice by a child
  pid_t child = ::fork();
  if (child < 0) {
    r.fail("fork", errno);
    r.emit();
    return r.exit_code();
  }
  if (child == 0) {
    if (clear) ::prctl(PR_SET_PDEATHSIG, 0);
    if (technique == "double-fork-setsid" || clear) double_fork_and_beat(heartbeat, deadline, clear);
    if (technique == "ignore-signals")
      for (int sig : {SIGHUP, SIGTERM, SIGINT, SIGPIPE}) std::signal(sig, SIG_IGN);
    if (technique == "new-pgrp") ::setpgid(0, 0);
    become_beater(heartbeat, deadline);
  }
  r.set("child_pid", static_cast<long long>(child));

  if (technique == "double-fork-setsid" || clear) {
    int status = 0;  // reap the middle process; 1 means its fork failed
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      r.fail("fork (second)", EAGAIN);
      r.emit();
      return r.exit_code();
    }
  }

  long beats = 0;
  constexpr std::int64_t kWaitMs = 6000;
  const std::int64_t wait_until = now_ms() + kWaitMs;
  while ((beats = count_lines_after(heartbeat, offset)) < wait_beats && now_ms() < wait_until) sleep_ms(10);
  r.set("beats_seen", beats);
  r.set("waited_ms", static_cast<long long>(now_ms() - start));
  if (beats >= wait_beats) {
    r.succeed();
  } else {
    r.fail("heartbeat", ETIMEDOUT);
    r.set_detail("only " + std::to_string(beats) + " beats in " + std::to_string(kWaitMs / 1000) + " s");
  }
  r.emit();
  return r.exit_code();
}
