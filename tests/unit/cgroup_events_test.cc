// Tests of wait_cgroup_unpopulated (cgroup.events "populated"): it blocks while a process lives in the cgroup and returns once cgroup.kill emptied it.
// Needs root and a cgroup2 mount; skips with the reason otherwise.
#include "harness/platform/posix/cgroup_events.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "harness/platform/posix/unique_fd.h"

using namespace std::chrono;
using breakout::wait_cgroup_unpopulated;

namespace {

std::string cgroup2_mount() {
  std::ifstream mounts("/proc/self/mounts");
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream f(line);
    std::string src, dir, type;
    if (f >> src >> dir >> type && type == "cgroup2") return dir;
  }
  return "";
}

bool write_to(const std::string& path, const char* text) {
  breakout::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  return fd.get() >= 0 && ::write(fd.get(), text, 1) == 1;
}

// A child that joins `dir` and forks a grandchild; both sleep until killed. The pipe
// says when both are in the cgroup.
pid_t start_pair(const std::string& dir) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t kid = ::fork();
  if (kid == 0) {
    if (!write_to(dir + "/cgroup.procs", "0")) ::_exit(3);
    if (::fork() == 0) {
      (void)!::write(ready[1], "x", 1);
      ::pause();
      ::_exit(0);
    }
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char c;
  const bool ok = ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  return ok ? kid : -1;
}

}  // namespace

TEST(CgroupEvents, WaitsWhilePopulatedAndReturnsAfterKill) {
  const std::string mount = cgroup2_mount();
  if (::geteuid() != 0 || mount.empty()) GTEST_SKIP() << "needs root and a cgroup2 mount";
  const std::string dir = mount + "/breakout-test-events-" + std::to_string(::getpid());
  if (::mkdir(dir.c_str(), 0755) != 0) GTEST_SKIP() << "cgroup2 not writable at " << mount;
  const pid_t kid = start_pair(dir);
  ASSERT_GT(kid, 0);

  auto t0 = steady_clock::now();
  EXPECT_FALSE(wait_cgroup_unpopulated(dir, t0 + milliseconds(150))) << "returned while two processes live in it";
  EXPECT_GE(steady_clock::now() - t0, milliseconds(150));

  ASSERT_TRUE(write_to(dir + "/cgroup.kill", "1"));
  t0 = steady_clock::now();
  EXPECT_TRUE(wait_cgroup_unpopulated(dir, t0 + seconds(5)));
  EXPECT_LT(steady_clock::now() - t0, seconds(2)) << "waited for the deadline, not for the kernel";
  EXPECT_EQ(::rmdir(dir.c_str()), 0) << "still busy after 'populated 0'";
  ::waitpid(kid, nullptr, 0);
  ::rmdir(dir.c_str());
}

TEST(CgroupEvents, UnreadableCgroupIsFalseAtOnce) {
  const auto t0 = steady_clock::now();
  EXPECT_FALSE(wait_cgroup_unpopulated("/nonexistent/breakout-cgroup", t0 + seconds(5)));
  EXPECT_LT(steady_clock::now() - t0, seconds(1));
}
