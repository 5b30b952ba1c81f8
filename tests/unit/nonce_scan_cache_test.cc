// Tests of the nonce scan's memory of processes older than a box (platform/posix/process_scan.cc, old_processes).
// A remembered pid is skipped only while the very process behind it lives and started before the box.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness/core/nonce.h"
#include "harness/platform/process.h"

extern char** environ;

namespace breakout {
namespace {

using namespace std::chrono_literals;

// `sleep 300`, started directly (no box), with BREAKOUT_NONCE=<nonce> in its environment when
// nonce is not empty; -1 when it could not start.
int start_sleeper(const std::string& nonce) {
  std::vector<std::string> env = {"PATH=/usr/bin:/bin"};
  if (!nonce.empty()) env.push_back("BREAKOUT_NONCE=" + nonce);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  char arg0[] = "sleep", arg1[] = "300";
  char* argv[] = {arg0, arg1, nullptr};
  pid_t pid = -1;
  if (::posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, argv, envp.data()) != 0) return -1;
  return pid;
}

// Kills and reaps a sleeper whatever the test asserted.
struct Sleeper {
  int pid = -1;
  ~Sleeper() { stop(); }
  void stop() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
};

// A box with the scan alone (no cgroup): what the scan finds is all live_count() sees.
std::unique_ptr<Containment> scan_box(const std::string& label, const std::string& nonce) {
  ::setenv("BREAKOUT_FORCE_NONCE_SCAN", "1", 1);
  auto box = std::make_unique<Containment>(label + "-" + std::to_string(::getpid()), nonce);
  ::unsetenv("BREAKOUT_FORCE_NONCE_SCAN");
  return box;
}

// A process older than box B is remembered by B's scan; box A, made before it started, must
// still read it (it is A's): the memory keeps each process's start time, not "old".
TEST(NonceScanCache, AProcessOlderThanOneBoxIsStillReadForAnEarlierBox) {
  const std::string nonce_a = random_hex(16);
  auto a = scan_box("cache-a", nonce_a);
  std::this_thread::sleep_for(30ms);  // > 2 clock ticks (10 ms each)
  Sleeper d{start_sleeper(nonce_a)};
  ASSERT_GT(d.pid, 0);
  std::this_thread::sleep_for(30ms);
  auto b = scan_box("cache-b", random_hex(16));
  EXPECT_EQ(b->live_count(), 0);  // d is older than b: remembered, not b's
  EXPECT_EQ(b->live_count(), 0);  // and skipped from memory
  EXPECT_EQ(a->live_count(), 1) << "a process younger than box a, carrying its nonce, was not seen";
  EXPECT_EQ(a->kill_all(), 1);
  EXPECT_EQ(::waitpid(d.pid, nullptr, 0), d.pid);
  d.pid = -1;
}

// A remembered old process dies and the attempt's own process gets its pid: the scan must
// read it (the pidfd says the old one is gone). The pid is steered with ns_last_pid
// (proc(5), /proc/sys/kernel/ns_last_pid: root only), retried since other processes fork too.
TEST(NonceScanCache, APidReusedAfterTheOldProcessDiedIsReadAgain) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to write /proc/sys/kernel/ns_last_pid";
  const std::string nonce = random_hex(16);
  for (int attempt = 0; attempt < 50; ++attempt) {
    Sleeper old{start_sleeper("")};
    ASSERT_GT(old.pid, 0);
    std::this_thread::sleep_for(30ms);
    auto box = scan_box("cache-reuse", nonce);
    ASSERT_EQ(box->live_count(), 0);  // remembers `old` (and everything else older)
    const int pid = old.pid;
    old.stop();
    {
      std::ofstream last("/proc/sys/kernel/ns_last_pid");
      last << pid - 1;
      if (!last.flush()) GTEST_SKIP() << "cannot write /proc/sys/kernel/ns_last_pid";
    }
    Sleeper young{start_sleeper(nonce)};
    ASSERT_GT(young.pid, 0);
    if (young.pid != pid) continue;  // another process took it first: again
    // execve done? /proc/<pid>/environ reads empty while it runs (platform_posix_test.cc).
    for (int i = 0; i < 200; ++i) {
      std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
      std::string argv0;
      std::getline(cmd, argv0, '\0');
      if (argv0 == "sleep") break;
      std::this_thread::sleep_for(5ms);
    }
    EXPECT_EQ(box->live_count(), 1) << "pid " << pid << ", reused by the attempt's process, was skipped";
    return;
  }
  GTEST_SKIP() << "could not get the same pid again in 50 tries (a busy machine)";
}

}  // namespace
}  // namespace breakout
