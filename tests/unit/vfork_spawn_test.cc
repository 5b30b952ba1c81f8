// Tests of the clone3/clone(CLONE_VM|CLONE_VFORK) launcher (harness/platform/posix/vfork_spawn.cc) and run_process on it.
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/platform/posix/clone3_vm.h"
#include "harness/platform/posix/containment.h"
#include "harness/platform/posix/unique_fd.h"
#include "harness/platform/posix/vfork_spawn.h"
#include "harness/platform/process.h"

namespace breakout {
namespace {

using namespace std::chrono_literals;

const char* const kEnv[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", nullptr};

// Reaps leftovers of earlier tests in this process, so the zombie check below
// sees only what the code under test left behind.
void reap_leftovers() {
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// Pid of an unreaped child of this process (a zombie, or one still running), 0 if none.
int unreaped_child() {
  siginfo_t info{};
  if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return 0;  // ECHILD: no children at all
  return info.si_pid;
}

// Runs `plan` to completion with stdout captured; returns the wait status.
int run_capture(vfork_spawn::ChildPlan plan, std::string* out) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw Error("pipe2");
  UniqueFd r(p[0]), w(p[1]);
  plan.stdio[1] = w.get();
  vfork_spawn::Child c = vfork_spawn::start(plan);
  w.reset();
  char buf[4096];
  for (ssize_t n; (n = ::read(r.get(), buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out->append(buf, static_cast<std::size_t>(n));
  }
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

TEST(VforkSpawn, MissingBinaryReportsEnoentAndLeavesNoZombie) {
  reap_leftovers();
  const char* argv[] = {"nope", nullptr};
  vfork_spawn::ChildPlan plan{.exe = "/nonexistent/breakout-no-such-binary", .argv = argv, .envp = kEnv};
  try {
    vfork_spawn::start(plan);
    FAIL() << "start() of a missing binary returned";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("execve for /nonexistent/breakout-no-such-binary"), std::string::npos) << what;
    EXPECT_NE(what.find(std::strerror(ENOENT)), std::string::npos) << what;
  }
  EXPECT_EQ(unreaped_child(), 0) << "the failed child was not reaped";

  // A setup step failing before execve: named, with the cwd, and reaped too.
  const char* sh_argv[] = {"sh", "-c", "true", nullptr};
  plan = {.exe = "/bin/sh", .argv = sh_argv, .envp = kEnv, .cwd = "/nonexistent-breakout-cwd"};
  try {
    vfork_spawn::start(plan);
    FAIL() << "start() with a missing cwd returned";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("chdir to cwd"), std::string::npos) << what;
    EXPECT_NE(what.find("(cwd /nonexistent-breakout-cwd)"), std::string::npos) << what;
  }
  EXPECT_EQ(unreaped_child(), 0) << "the failed child was not reaped";

  // A directory is not executable: EACCES from execve itself.
  plan = {.exe = "/tmp", .argv = argv, .envp = kEnv};
  EXPECT_THROW(vfork_spawn::start(plan), Error);
  EXPECT_EQ(unreaped_child(), 0);
}

TEST(VforkSpawn, ChildKilledBySignalIsReportedAsSuch) {
  const char* argv[] = {"sh", "-c", "kill -KILL $$", nullptr};
  vfork_spawn::ChildPlan plan{.exe = "/bin/sh", .argv = argv, .envp = kEnv};
  vfork_spawn::Child c = vfork_spawn::start(plan);
  ASSERT_GE(c.pidfd.get(), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(c.pid, &status, 0), c.pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  // The same through run_process (pidfd + Asio).
  LaunchSpec spec;
  spec.argv = {"sh", "-c", "kill -SEGV $$"};
  spec.env = {"PATH=/usr/bin:/bin"};
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.term_signal, SIGSEGV);
}

TEST(VforkSpawn, StdioWiring) {
  int in[2], out[2], err[2];
  ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
  UniqueFd in_r(in[0]), in_w(in[1]);
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  UniqueFd out_r(out[0]), out_w(out[1]);
  ASSERT_EQ(::pipe2(err, O_CLOEXEC), 0);
  UniqueFd err_r(err[0]), err_w(err[1]);
  const char* argv[] = {"sh", "-c", "read line; echo \"out:$line\"; echo \"err:$line\" >&2", nullptr};
  vfork_spawn::ChildPlan plan{.exe = "/bin/sh", .argv = argv, .envp = kEnv,
                              .stdio = {in_r.get(), out_w.get(), err_w.get()}};
  vfork_spawn::Child c = vfork_spawn::start(plan);
  in_r.reset();
  out_w.reset();
  err_w.reset();
  ASSERT_EQ(::write(in_w.get(), "hello\n", 6), 6);
  in_w.reset();
  auto slurp = [](int fd) {
    std::string s;
    char buf[256];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<std::size_t>(n));
    return s;
  };
  EXPECT_EQ(slurp(out_r.get()), "out:hello\n");
  EXPECT_EQ(slurp(err_r.get()), "err:hello\n");
  int status = 0;
  ASSERT_EQ(::waitpid(c.pid, &status, 0), c.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// LaunchSpec::user_namespaces_off: the child can make no user namespace, the harness still can.
TEST(VforkSpawn, UserNamespacesOffIsTheChildsAlone) {
  if (::geteuid() != 0) GTEST_SKIP() << "user_namespaces_off maps the harness's own ids: run as root, as CI does";
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "cat /proc/sys/user/max_user_namespaces; id -u; unshare -U true 2>/dev/null; echo rc=$?"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.timeout = 10s;
  spec.user_namespaces_off = true;
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "0\n0\nrc=1\n") << r.err;  // the limit, root mapped to root, unshare refused
  std::ifstream host("/proc/sys/user/max_user_namespaces");
  long long host_limit = 0;
  host >> host_limit;
  EXPECT_GT(host_limit, 0);  // the host's own limit is untouched
}

// LaunchSpec::bind_over: the child (and only the child) sees the source's content at the target.
TEST(VforkSpawn, BindOverIsTheChildsAloneAndGoesWithIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "bind_over needs CAP_SYS_ADMIN (a mount namespace): run as root";
  char dir_template[] = "/tmp/breakout-bindover-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template, src = dir + "/harness-file", dst = dir + "/system-file";
  std::ofstream(src) << "nameserver 198.18.0.2\n";
  std::ofstream(dst) << "the host's own\n";
  LaunchSpec spec;
  spec.argv = {"/bin/cat", dst};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.timeout = 10s;
  spec.bind_over = {{src, dst}};
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  std::string host_view;
  std::getline(std::ifstream(dst), host_view);
  std::ifstream mounts("/proc/self/mountinfo");
  const std::string ours((std::istreambuf_iterator<char>(mounts)), std::istreambuf_iterator<char>());
  ::unlink(src.c_str());
  ::unlink(dst.c_str());
  ::rmdir(dir.c_str());
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.exited && r.exit_code == 0) << r.err;
  EXPECT_EQ(r.out, "nameserver 198.18.0.2\n");
  EXPECT_EQ(host_view, "the host's own");                  // the harness's namespace is untouched
  EXPECT_EQ(ours.find(dst), std::string::npos) << ours;   // and holds no mount of it
}

TEST(VforkSpawn, ChildStartsWithDefaultSignalsAndEmptyMask) {
  // Ignored and blocked in the parent thread: neither may reach the child.
  struct sigaction ign {}, old_usr2 {};
  ign.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGUSR2, &ign, &old_usr2), 0);
  sigset_t usr1, old_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &usr1, &old_mask), 0);
  const char* argv[] = {"cat", "/proc/self/status", nullptr};
  std::string status_text;
  const int status = run_capture({.exe = "/bin/cat", .argv = argv, .envp = kEnv}, &status_text);
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGUSR2, &old_usr2, nullptr);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_NE(status_text.find("SigBlk:\t0000000000000000\n"), std::string::npos) << status_text;
  EXPECT_NE(status_text.find("SigIgn:\t0000000000000000\n"), std::string::npos) << status_text;
}

// The fds a child sees, as listed by the child itself (`[` is a shell builtin:
// /proc/self/fd/N is the shell's own fd N).
const char* const kListFds = "for n in $(seq 0 300); do if [ -e /proc/self/fd/$n ]; then echo $n; fi; done";

TEST(VforkSpawn, ConcurrentSpawnsLeakNoFdsIntoSiblings) {
  // Several threads spawn at once while the harness holds inheritable fds (as
  // a library might); each child must see exactly 0, 1, 2. Each thread's own
  // pipes are CLOEXEC; the sibling children would otherwise see those too.
  std::vector<UniqueFd> leaky;
  for (int i = 0; i < 3; ++i) leaky.emplace_back(::open("/dev/null", O_RDONLY));  // no O_CLOEXEC on purpose
  leaky.emplace_back(::dup2(leaky[0].get(), 250));
  for (const auto& fd : leaky) ASSERT_GE(fd.get(), 0);

  constexpr int kThreads = 4, kEach = 8;
  std::atomic<int> bad{0}, done{0};
  std::vector<std::string> first_bad(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        LaunchSpec spec;
        spec.argv = {"sh", "-c", kListFds};
        spec.env = {"PATH=/usr/bin:/bin"};
        spec.timeout = 60s;
        const LaunchResult r = run_process(spec, nullptr, nullptr);
        if (!r.started || !r.exited || r.exit_code != 0 || r.out != "0\n1\n2\n") {
          bad.fetch_add(1);
          if (first_bad[t].empty())
            first_bad[t] = r.started ? "fds seen by a child:\n" + r.out : "not started: " + r.start_error + "\n";
        }
        done.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(done.load(), kThreads * kEach);
  EXPECT_EQ(bad.load(), 0) << first_bad[0] << first_bad[1] << first_bad[2] << first_bad[3];
}

TEST(VforkSpawn, ControllingTtyMakesTheChildASessionLeader) {
  // LaunchSpec::controlling_tty: setsid + TIOCSCTTY in the child. /proc/self/stat
  // field 6 is the session id (proc(5)); a session leader's equals its pid.
  UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (master.get() < 0 || ::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0)
    GTEST_SKIP() << "no pty here: " << std::strerror(errno);
  LaunchSpec spec;
  spec.argv = {"sh", "-c", "read -r pid comm state ppid pgrp sid tty rest < /proc/self/stat; "
                           "echo \"$pid $sid $tty\""};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.controlling_tty = ::ptsname(master.get());
  spec.timeout = 30s;
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  std::istringstream fields(r.out);
  long pid = 0, sid = 0, tty = 0;
  ASSERT_TRUE(fields >> pid >> sid >> tty) << r.out << r.err;
  EXPECT_EQ(pid, r.pid);
  EXPECT_EQ(sid, pid) << "not a session leader";
  EXPECT_NE(tty, 0) << "no controlling terminal";
}

TEST(VforkSpawn, ChildJoinsTheContainmentCgroup) {
  Containment box("vfork-spawn-test-" + std::to_string(::getpid()), "vforkspawntestnonce" + std::to_string(::getpid()));
  if (box.impl().cgroup_procs_fd() < 0)
    GTEST_SKIP() << "no writable cgroup v2 here (" << box.mechanism() << "); needs root and a cgroup2 mount";
  LaunchSpec spec;
  spec.argv = {"cat", "/proc/self/cgroup"};
  spec.env = {"PATH=/usr/bin:/bin"};
  const LaunchResult r = run_process(spec, &box, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_NE(r.out.find("/breakout/vfork-spawn-test-"), std::string::npos) << r.out;
  if (clone3_vm::available() && box.impl().cgroup_dir_fd() >= 0) {
    EXPECT_EQ(r.box_join, "clone3-into-cgroup");
  }
}

// The cgroup v2 line ("0::/path") of /proc/<pid>/cgroup; empty when unreadable.
std::string cgroup_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return "";
}

// The box's cgroup path below the cgroup2 mount ("/breakout/<label>"), from mechanism().
std::string box_cgroup(const Containment& box) {
  const std::string m = box.mechanism();  // "cgroup2 <mount>/breakout/<label>"
  const auto at = m.find("/breakout/");
  return at == std::string::npos ? "" : m.substr(at);
}

// A plan that starts `sleep 30` into `box` (the caller kills and reaps it).
struct SleepPlan {
  const char* argv[3] = {"sleep", "30", nullptr};
  vfork_spawn::ChildPlan plan;
  explicit SleepPlan(const Containment& box) {
    plan.exe = "/bin/sleep";
    plan.argv = argv;
    plan.envp = kEnv;
    plan.cgroup_procs_fd = box.impl().cgroup_procs_fd();
    plan.cgroup_dir_fd = box.impl().cgroup_dir_fd();
  }
};

// Kills and reaps a started child whatever the test asserted.
struct KillAndReap {
  int pid;
  ~KillAndReap() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
};

// clone3(CLONE_INTO_CGROUP): the child never runs outside the box, so it must be in the
// box's cgroup when start() returns, and the Child says it was born there (planted: the
// CLONE_INTO_CGROUP flag dropped from the clone3 call turns this red).
TEST(VforkSpawn, Clone3ChildIsInTheBoxCgroupWhenStartReturns) {
  if (!clone3_vm::available()) GTEST_SKIP() << "no clone3 trampoline for this architecture";
  Containment box("vfork-clone3-" + std::to_string(::getpid()), "vforkclone3nonce" + std::to_string(::getpid()));
  if (box.impl().cgroup_dir_fd() < 0)
    GTEST_SKIP() << "no writable cgroup v2 here (" << box.mechanism() << "); needs root and a cgroup2 mount";
  SleepPlan p(box);
  vfork_spawn::Child c = vfork_spawn::start(p.plan);
  KillAndReap guard{c.pid};
  EXPECT_EQ(cgroup_of(c.pid), box_cgroup(box));
  EXPECT_EQ(c.joined, vfork_spawn::BoxJoin::kAtClone) << vfork_spawn::to_string(c.joined);
  EXPECT_GE(c.pidfd.get(), 0);
}

// A setup failure on the clone3 path is reported and reaped like on the clone path.
TEST(VforkSpawn, Clone3PathReportsExecFailureAndLeavesNoZombie) {
  Containment box("vfork-clone3-fail-" + std::to_string(::getpid()), "vforkclone3failnonce" + std::to_string(::getpid()));
  if (box.impl().cgroup_dir_fd() < 0)
    GTEST_SKIP() << "no writable cgroup v2 here (" << box.mechanism() << "); needs root and a cgroup2 mount";
  reap_leftovers();
  SleepPlan p(box);
  p.plan.exe = "/nonexistent/breakout-no-such-binary";
  try {
    vfork_spawn::start(p.plan);
    FAIL() << "start() of a missing binary returned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(std::strerror(ENOENT)), std::string::npos) << e.what();
  }
  EXPECT_EQ(unreaped_child(), 0) << "the failed child was not reaped";
}

// Installs a seccomp filter that answers clone3 with `err` (Docker's default profile
// answers ENOSYS, so glibc falls back to clone: moby/profiles seccomp default.json).
bool refuse_clone3(int err) {
#ifdef SYS_clone3
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<unsigned>(err) & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog {};
  prog.len = static_cast<unsigned short>(sizeof filter / sizeof filter[0]);
  prog.filter = filter;
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
#else
  (void)err;
  return false;
#endif
}

// clone3 refused (seccomp, as in CI containers): the clone path with the cgroup.procs write
// runs, the child is still in the box when start() returns, and the Child says which path
// ran. In a forked test process, so the filter and the remembered refusal stay there
// (planted: the fallback skipped, start() throwing clone3's errno, turns this red).
TEST(VforkSpawn, Clone3RefusedFallsBackToTheCgroupProcsWrite) {
  if (!clone3_vm::available()) GTEST_SKIP() << "no clone3 trampoline for this architecture";
  Containment box("vfork-fallback-" + std::to_string(::getpid()), "vforkfallbacknonce" + std::to_string(::getpid()));
  if (box.impl().cgroup_dir_fd() < 0)
    GTEST_SKIP() << "no writable cgroup v2 here (" << box.mechanism() << "); needs root and a cgroup2 mount";
  const std::string want = box_cgroup(box);
  for (const int err : {ENOSYS, EPERM}) {
    const int pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // the forked test process: only _exit codes leave it
      if (!refuse_clone3(err)) ::_exit(10);
      for (int round = 0; round < 2; ++round) {  // the second start skips clone3 (refusal remembered)
        SleepPlan p(box);
        try {
          vfork_spawn::Child c = vfork_spawn::start(p.plan);
          KillAndReap guard{c.pid};
          if (c.joined != vfork_spawn::BoxJoin::kProcsWrite) ::_exit(11);
          if (cgroup_of(c.pid) != want) ::_exit(12);
        } catch (...) {
          ::_exit(13);
        }
      }
      ::_exit(0);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "errno " << err
                                      << ": 10 no seccomp, 11 not the cgroup.procs path, 12 not in the box, 13 start threw";
  }
}

}  // namespace
}  // namespace breakout
