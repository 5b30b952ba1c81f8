// breakout-probe-hang: a process tree that will not end on its own soon and
// resists polite signals, to test that a spawner's timeout really kills it all.
//
//   breakout-probe-hang --heartbeat FILE [--children N] [--lifetime-ms 30000]
//
// Ignores SIGTERM, SIGHUP and SIGINT, forks N children (0..64, default 2) that
// inherit that and hold no stdio (/dev/null, other fds closed), and then the
// probe and every child append "beat <n> <pid>\n" to FILE every 25 ms. Everyone
// stops by themselves --lifetime-ms (100..3600000) after start: the safety bound.
// Only SIGKILL (or the sandbox's equivalent) ends it sooner.
//
// The report line is printed (and flushed) right after the children started, so
// partial output is visible: ok=true, children (their pids), lifetime_ms; ok=false
// with the errno when a fork failed (the children already started keep beating).
// The verdict is the harness's: FILE must stop growing once the timeout fired.
// Exit: 0 after the lifetime, 64 usage error (killed by a signal otherwise).
//
// POSIX only (Linux).
#include <cerrno>
#include <csignal>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "probes/common/args.h"
#include "probes/common/heartbeat.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {
constexpr char kUsage[] = "usage: breakout-probe-hang --heartbeat FILE [--children N] [--lifetime-ms 30000]\n";
}

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage,
            {{"heartbeat", Args::kValue}, {"children", Args::kValue}, {"lifetime-ms", Args::kValue}});
  const std::string heartbeat = args.require("heartbeat");
  const long long n_children = args.get_int("children", 0, 64, 2);
  const std::int64_t lifetime = args.get_int("lifetime-ms", 100, 3600000, 30000);
  const std::int64_t deadline = now_ms() + lifetime;

  for (int sig : {SIGTERM, SIGHUP, SIGINT}) std::signal(sig, SIG_IGN);

  ProbeReport r("hang");
  r.set("heartbeat", heartbeat);
  r.set("lifetime_ms", static_cast<long long>(lifetime));
  JsonArray pids;
  int fork_errno = 0;
  std::fflush(nullptr);
  for (long long i = 0; i < n_children; ++i) {
    pid_t pid = ::fork();
    if (pid < 0) {
      fork_errno = errno;
      break;
    }
    if (pid == 0) {
      detach_stdio_and_close_fds();
      beat_until(heartbeat, deadline);
    }
    pids.add(static_cast<long long>(pid));
  }
  r.set_raw("children", pids.str());
  r.set("pid", static_cast<long long>(::getpid()));
  if (fork_errno) {
    r.fail("fork", fork_errno);
  } else {
    r.succeed();
  }
  r.emit();

  for (std::uint64_t n = 1; now_ms() < deadline; ++n) {
    beat_once(heartbeat, n);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    sleep_ms(kBeatIntervalMs);
  }
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {  // children end at the same deadline
  }
  return 0;
}
