// Tests of the POSIX platform layer: run_process, Containment, snapshots, nonce listeners, ExternalHost.
// Tests that need root, cgroup v2, xattrs, ACL tools, IPv6 or network namespaces skip with the reason.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/host/access_change.h"
#include "harness/host/fs_snapshot.h"
#include "harness/host/host_marks.h"
#include "harness/host/net_listeners.h"
#include "harness/platform/netns.h"
#include "harness/platform/os.h"
#include "harness/platform/posix/containment.h"
#include "harness/platform/posix/interrupt_wake.h"
#include "harness/platform/process.h"

namespace breakout {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::vector<std::string> base_env() { return {"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL=C"}; }

LaunchSpec sh(const std::string& script) {
  LaunchSpec spec;
  spec.argv = {"sh", "-c", script};
  spec.env = base_env();
  spec.timeout = 60s;
  return spec;
}

std::string test_nonce(const std::string& salt) {
  // 32 hex chars, unique per test and process.
  std::ostringstream out;
  out << std::hex << ::getpid() << "0" << std::hash<std::string>{}(salt + std::to_string(::getpid()));
  std::string s = out.str();
  for (char& c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) c = '0';
  while (s.size() < 32) s += 'a';
  return s.substr(0, 32);
}

class TempDir {
 public:
  explicit TempDir(const fs::path& base = fs::temp_directory_path()) {
    std::string tmpl = (base / "breakout-platform-test-XXXXXX").string();
    const char* made = ::mkdtemp(tmpl.data());
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = made;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

bool pid_alive(int pid) {
  // A zombie (killed, not yet reaped by its new parent) counts as dead.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  std::string line;
  std::getline(stat, line);
  const auto close_paren = line.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < line.size() && line[close_paren + 2] != 'Z';
}

bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds max) {
  const auto deadline = Clock::now() + max;
  while (Clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

// ---------------------------------------------------------------------------
// run_process

TEST(RunProcess, ExitCodeAndCapture) {
  const LaunchResult r = run_process(sh("echo out; echo err >&2; exit 7"), nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_GT(r.pid, 0);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.out_total, 4u);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.drain_timed_out);
  EXPECT_GT(r.duration.count(), 0);
}

TEST(RunProcess, SignalPropagates) {
  const LaunchResult r = run_process(sh("kill -TERM $$"), nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.term_signal, SIGTERM);
}

TEST(RunProcess, EnvIsExactAndArgv0Kept) {
  LaunchSpec spec;
  spec.argv = {"sh", "-c", "echo \"$0|$FOO|$HOME\"", "zero"};
  spec.env = {"PATH=/usr/bin:/bin", "FOO=bar"};
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "zero|bar|\n");
}

// lookup_path picks argv[0]; the child still gets env's PATH (path-hijack: the harness's own
// PATH finds the spawner, the attempt's PATH is what the spawner is handed).
TEST(RunProcess, LookupPathPicksArgv0AndTheChildKeepsEnvsPath) {
  TempDir dir;
  const fs::path stub = dir.path() / "sh";
  std::ofstream(stub) << "#!/bin/sh\necho stub\n";
  fs::permissions(stub, fs::perms::owner_all);
  LaunchSpec spec;
  spec.argv = {"sh", "-c", "echo \"real|$PATH\""};
  spec.env = {"PATH=" + dir.path().string() + ":/usr/bin:/bin"};
  const LaunchResult hijacked = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(hijacked.started) << hijacked.start_error;
  EXPECT_EQ(hijacked.out, "stub\n");  // without lookup_path, env's PATH decides
  spec.lookup_path = "/usr/bin:/bin";
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "real|" + dir.path().string() + ":/usr/bin:/bin\n");
}

TEST(RunProcess, Cwd) {
  TempDir dir;
  LaunchSpec spec = sh("pwd");
  spec.cwd = dir.path().string();
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, dir.path().string() + "\n");

  spec.cwd = (dir.path() / "missing").string();
  const LaunchResult bad = run_process(spec, nullptr, nullptr);
  EXPECT_FALSE(bad.started);
  EXPECT_NE(bad.start_error.find("chdir"), std::string::npos) << bad.start_error;
}

TEST(RunProcess, StdinIsDevNull) {
  const LaunchResult r = run_process(sh("cat; echo done"), nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "done\n");
}

TEST(RunProcess, TimeoutKillsDirectChildWithinBound) {
  LaunchSpec spec;
  spec.argv = {"sleep", "30"};
  spec.env = base_env();
  spec.timeout = 300ms;
  const auto t0 = Clock::now();
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  const auto took = Clock::now() - t0;
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_LT(took, 3s);
  EXPECT_GE(r.duration, 300ms);
  EXPECT_FALSE(pid_alive(r.pid));
}

TEST(RunProcess, CancelKillsDirectChild) {
  std::atomic<bool> cancel{false};
  std::thread setter([&] {
    std::this_thread::sleep_for(200ms);
    cancel = true;
  });
  LaunchSpec spec;
  spec.argv = {"sleep", "30"};
  spec.env = base_env();
  const auto t0 = Clock::now();
  const LaunchResult r = run_process(spec, nullptr, &cancel);
  setter.join();
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_LT(Clock::now() - t0, 3s);
}

// The interrupt flag wakes run_process through the interrupt pipe, not a poll: with the
// flag's own poll slowed to a 2 s backstop (kCancelBackstop), a run cancelled by SIGINT must
// end well before that. (ctest runs each test in its own process, so the handler installed
// here touches no other test.)
TEST(RunProcess, InterruptSignalWakesTheRunThroughThePipe) {
  static std::atomic<bool> interrupted{false};
  breakout::install_interrupt_flag(&interrupted);
  ASSERT_GE(breakout::interrupt_wake_fd(&interrupted), 0);
  std::atomic<bool> other{false};
  EXPECT_EQ(breakout::interrupt_wake_fd(&other), -1);  // any other flag is polled
  std::thread signaller([] {
    std::this_thread::sleep_for(200ms);
    ::kill(::getpid(), SIGINT);
  });
  LaunchSpec spec;
  spec.argv = {"sleep", "30"};
  spec.env = base_env();
  const auto t0 = Clock::now();
  const LaunchResult r = run_process(spec, nullptr, &interrupted);
  const auto took = Clock::now() - t0;
  signaller.join();
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_LT(took, 1500ms);  // the backstop alone would take 2 s
}

// Regression: with a cancel flag, a poll tick already queued when the run
// finished re-armed itself forever and run_process never returned (seen as a
// hung `breakout run`). Many short runs make that window likely; a watchdog
// turns a hang into a failure instead of a stuck test.
TEST(RunProcess, ShortRunsWithCancelFlagAlwaysReturn) {
  std::atomic<bool> cancel{false};
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    for (int i = 0; i < 600 && !done; ++i) std::this_thread::sleep_for(100ms);
    if (!done) {
      std::fprintf(stderr, "run_process hung\n");
      std::_Exit(3);
    }
  });
  LaunchSpec spec;
  spec.env = base_env();
  spec.timeout = 5s;
  for (int i = 0; i < 400; ++i) {
    // Exit times sweep across the 10 ms poll tick, so some land on it.
    spec.argv = {"sh", "-c", "sleep 0.0" + std::to_string(10 + i % 10)};
    const LaunchResult r = run_process(spec, nullptr, &cancel);
    ASSERT_TRUE(r.exited) << "run " << i;
  }
  done = true;
  watchdog.join();
}

TEST(RunProcess, EightMiBOnBothStreamsNoDeadlock) {
  LaunchSpec spec = sh("head -c 8388608 /dev/zero & head -c 8388608 /dev/zero >&2; wait");
  spec.timeout = 60s;
  const auto t0 = Clock::now();
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out_total, 8388608u);
  EXPECT_EQ(r.err_total, 8388608u);
  EXPECT_EQ(r.out.size(), 8388608u);
  EXPECT_EQ(r.err.size(), 8388608u);
  EXPECT_LT(Clock::now() - t0, 30s);
}

TEST(RunProcess, MaxCaptureTruncatesAndCounts) {
  LaunchSpec spec = sh("head -c 1000000 /dev/zero; head -c 70000 /dev/zero >&2");
  spec.max_capture = 1000;
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_EQ(r.err.size(), 1000u);
  EXPECT_EQ(r.out_total, 1000000u);
  EXPECT_EQ(r.err_total, 70000u);
}

TEST(RunProcess, DrainBoundWhenGrandchildHoldsPipe) {
  const std::string nonce = test_nonce("drain");
  Containment box("test-drain-" + std::to_string(::getpid()), nonce);
  LaunchSpec spec = sh("sleep 30 & echo hi");
  spec.env.push_back("BREAKOUT_NONCE=" + nonce);
  spec.drain_after_exit = 2000ms;
  const auto t0 = Clock::now();
  const LaunchResult r = run_process(spec, &box, nullptr);
  const auto took = Clock::now() - t0;
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_TRUE(r.drain_timed_out);
  EXPECT_GE(took, 1900ms);
  EXPECT_LT(took, 4s);
  EXPECT_LT(r.duration, 1s);  // start to reap, not including the drain
  EXPECT_GE(box.live_count(), 1) << box.mechanism();
  EXPECT_GE(box.kill_all(), 1);
  EXPECT_EQ(box.live_count(), 0);
}

TEST(RunProcess, NonExistentBinaryIsNotStarted) {
  LaunchSpec spec;
  spec.argv = {"breakout-no-such-binary-xyz"};
  spec.env = base_env();
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("not found"), std::string::npos) << r.start_error;

  spec.argv = {"/nonexistent/breakout-no-such-binary"};
  const LaunchResult r2 = run_process(spec, nullptr, nullptr);
  EXPECT_FALSE(r2.started);
  EXPECT_NE(r2.start_error.find("No such file"), std::string::npos) << r2.start_error;

  spec.argv = {};
  EXPECT_FALSE(run_process(spec, nullptr, nullptr).started);
}

TEST(RunProcess, NoFdLeaksIntoChild) {
  // Inheritable fds opened by the harness: below and above the fds
  // run_process itself creates (Boost 1.81's whitelist close skips the gap).
  std::vector<int> leaky;
  for (int i = 0; i < 4; ++i) leaky.push_back(::open("/dev/null", O_RDONLY));  // no O_CLOEXEC on purpose
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  leaky.push_back(p[0]);
  leaky.push_back(p[1]);
  leaky.push_back(::dup2(p[1], 200));
  for (int fd : leaky) ASSERT_GE(fd, 0);

  // `[` is a shell builtin: /proc/self/fd/N is the shell's own fd N, and
  // testing it opens nothing new.
  LaunchSpec spec = sh("for n in $(seq 0 256); do if [ -e /proc/self/fd/$n ]; then echo $n; fi; done");
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  for (int fd : leaky) ::close(fd);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "0\n1\n2\n") << "fds seen by the child:\n" << r.out;
}

TEST(RunProcess, InheritDirsAppearAtTheirNumbersOnly) {
  // LaunchSpec::inherit_fds (class fd-leak): the directory is open at exactly
  // that number in the child, and nothing else leaks with it.
  LaunchSpec spec = sh("for n in $(seq 0 64); do if [ -e /proc/self/fd/$n ]; then echo $n; fi; done; "
                       "readlink /proc/self/fd/5; readlink /proc/self/fd/7");
  spec.inherit_fds = {{"/tmp", 5}, {"/", 7}};
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "0\n1\n2\n5\n7\n/tmp\n/\n");

  spec.inherit_fds = {{"/nonexistent-breakout-dir", 5}};
  EXPECT_FALSE(run_process(spec, nullptr, nullptr).started);
  spec.inherit_fds = {{"/tmp", 2}};
  EXPECT_FALSE(run_process(spec, nullptr, nullptr).started);
}

TEST(RunProcess, InheritedFileIsOpenForAppendOnly) {
  // A leaked file (InheritedFd::Open::kAppend) is write-only and appends: the child's write lands
  // after what was there, and a read through it fails. A symlink is refused (O_NOFOLLOW).
  TempDir dir;
  const fs::path file = dir.path() / "log";
  std::ofstream(file) << "before\n";
  LaunchSpec spec = sh("echo after >&6; if cat <&6 >/dev/null 2>&1; then echo readable; else echo write-only; fi");
  spec.inherit_fds = {{file.string(), 6, LaunchSpec::InheritedFd::Open::kAppend}};
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "write-only\n");
  std::ifstream in(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "before\nafter\n");

  fs::create_symlink(file, dir.path() / "link");
  spec.inherit_fds = {{(dir.path() / "link").string(), 6, LaunchSpec::InheritedFd::Open::kAppend}};
  EXPECT_FALSE(run_process(spec, nullptr, nullptr).started);
}

// ---------------------------------------------------------------------------
// Containment

// Starts a double-forked setsid daemon (`exec sleep 300`, BREAKOUT_NONCE=nonce in its
// environ) through run_process with `box` (may be null); returns its pid once it is the sleep.
int start_daemon(Containment* box, const std::string& nonce) {
  TempDir dir;
  const fs::path pidfile = dir.path() / "daemon.pid";
  // Double fork + setsid: the daemon is reparented away from the spawner and
  // leaves its session; only the box can still find it.
  LaunchSpec spec = sh("(setsid sh -c 'echo $$ > " + pidfile.string() +
                       "; exec sleep 300' </dev/null >/dev/null 2>&1 &); exit 0");
  spec.env.push_back("BREAKOUT_NONCE=" + nonce);
  const LaunchResult r = run_process(spec, box, nullptr);
  EXPECT_TRUE(r.started) << r.start_error;
  EXPECT_FALSE(r.drain_timed_out);
  if (!wait_until([&] { return fs::exists(pidfile) && fs::file_size(pidfile) > 0; }, 5s)) return 0;
  int pid = 0;
  std::ifstream(pidfile) >> pid;
  if (pid <= 0) return 0;
  // The pid file is written just before `exec sleep`; while execve runs,
  // /proc/<pid>/environ can read empty and the nonce scan would miss it
  // (seen once under load). Count once the daemon is the sleep.
  EXPECT_TRUE(wait_until([&] {
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
    std::string argv0;
    std::getline(cmd, argv0, '\0');
    return argv0 == "sleep";
  }, 5s));
  return pid;
}

// Never leaves a test daemon behind, whatever the test asserted.
struct KillOnExit {
  int pid;
  ~KillOnExit() {
    if (pid > 0 && pid_alive(pid)) ::kill(pid, SIGKILL);
  }
};

void expect_daemon_killed(Containment& box, const std::string& nonce) {
  const int pid = start_daemon(&box, nonce);
  KillOnExit guard{pid};
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(pid_alive(pid));
  EXPECT_GE(box.live_count(), 1) << box.mechanism();
  EXPECT_GE(box.kill_all(), 1) << box.mechanism();
  EXPECT_TRUE(wait_until([&] { return !pid_alive(pid); }, 2s)) << "daemon " << pid << " survived";
  EXPECT_EQ(box.live_count(), 0);
}

TEST(Containment, Cgroup2KillsDoubleForkedSetsidDaemon) {
  const std::string nonce = test_nonce("cgroup");
  const std::string label = "test-cg-" + std::to_string(::getpid());
  std::string dir;
  {
    Containment box(label, nonce);
    if (box.mechanism().rfind("cgroup2 ", 0) != 0)
      GTEST_SKIP() << "no writable cgroup v2 here (" << box.mechanism() << "); needs root and a cgroup2 mount";
    dir = box.mechanism().substr(8);
    EXPECT_TRUE(fs::is_directory(dir));
    // The child is in the box before exec: its own /proc/self/cgroup says so.
    const LaunchResult r = run_process(sh("cat /proc/self/cgroup"), &box, nullptr);
    ASSERT_TRUE(r.started) << r.start_error;
    EXPECT_NE(r.out.find("0::/breakout/" + label), std::string::npos) << r.out;
    EXPECT_FALSE(r.box_join.empty()) << "a start into a cgroup box says how it joined";
    expect_daemon_killed(box, nonce);
  }
  EXPECT_FALSE(fs::exists(dir)) << "cgroup not removed: " << dir;
}

TEST(Containment, NonceScanFallbackKillsDoubleForkedSetsidDaemon) {
  ::setenv("BREAKOUT_FORCE_NONCE_SCAN", "1", 1);
  Containment box("test-scan-" + std::to_string(::getpid()), test_nonce("scan"));
  ::unsetenv("BREAKOUT_FORCE_NONCE_SCAN");
  EXPECT_EQ(box.mechanism(), "nonce-scan");
  EXPECT_EQ(box.impl().cgroup_procs_fd(), -1);
  expect_daemon_killed(box, box.nonce());
}

// The scan reads only processes started since the box was made (process_scan.cc, nonce_scan):
// one older than the box, even carrying the nonce, is not the attempt's.
TEST(Containment, NonceScanSkipsProcessesOlderThanTheBox) {
  const std::string nonce = test_nonce("older");
  const int pid = start_daemon(nullptr, nonce);
  KillOnExit guard{pid};
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(30ms);  // > 2 clock ticks (10 ms each): the box starts a later tick
  ::setenv("BREAKOUT_FORCE_NONCE_SCAN", "1", 1);
  Containment box("test-older-" + std::to_string(::getpid()), nonce);
  ::unsetenv("BREAKOUT_FORCE_NONCE_SCAN");
  EXPECT_EQ(box.live_count(), 0);
  EXPECT_EQ(box.kill_all(), 0);
  EXPECT_TRUE(pid_alive(pid));
}

// kill_all() once, then a start into the box: the destructor must scan again and kill it
// (it skips the second scan only when nothing started since the last clean one).
TEST(Containment, DestructorScansAgainAfterALaterStart) {
  int pid = 0;
  {
    ::setenv("BREAKOUT_FORCE_NONCE_SCAN", "1", 1);
    Containment box("test-later-" + std::to_string(::getpid()), test_nonce("later"));
    ::unsetenv("BREAKOUT_FORCE_NONCE_SCAN");
    EXPECT_EQ(box.kill_all(), 0);
    pid = start_daemon(&box, box.nonce());
    ASSERT_GT(pid, 0);
  }
  KillOnExit guard{pid};
  EXPECT_TRUE(wait_until([&] { return !pid_alive(pid); }, 2s)) << "daemon " << pid << " survived the box";
}

TEST(Containment, EmptyBoxIsQuiet) {
  Containment box("test-empty-" + std::to_string(::getpid()), test_nonce("empty"));
  EXPECT_EQ(box.live_count(), 0);
  EXPECT_EQ(box.kill_all(), 0);
}

// ---------------------------------------------------------------------------
// Snapshots

void make_tree(const fs::path& root) {
  fs::create_directories(root / "dir" / "sub");
  write_file(root / "a.txt", "alpha");
  write_file(root / "dir" / "b.txt", "bravo");
  write_file(root / "dir" / "sub" / "c.txt", "charlie");
  fs::create_symlink("a.txt", root / "link");
  fs::create_directories(root / "skip" / "inner");
  write_file(root / "skip" / "inner" / "x", "x");
}

const FsChange* find_change(const std::vector<FsChange>& changes, const std::string& path) {
  for (const FsChange& c : changes)
    if (c.path == path) return &c;
  return nullptr;
}

std::string dump(const std::vector<FsChange>& changes) {
  std::string out;
  for (const FsChange& c : changes) out += c.kind + " " + c.path + " [" + c.detail + "]\n";
  return out;
}

TEST(Snapshot, UntouchedTreeHasNoChanges) {
  TempDir t;
  make_tree(t.path());
  const Snapshot a = take_snapshot(t.path());
  const Snapshot b = take_snapshot(t.path());
  EXPECT_EQ(a.size(), 10u);  // "", a.txt, dir, dir/b.txt, dir/sub, dir/sub/c.txt, link, skip, skip/inner, skip/inner/x
  EXPECT_TRUE(diff_snapshots(a, b).empty()) << dump(diff_snapshots(a, b));
  ASSERT_TRUE(a.count("link"));
  EXPECT_EQ(a.at("link").type, 'l');
  EXPECT_EQ(a.at("link").digest, "a.txt");
  EXPECT_EQ(a.at("a.txt").digest, "8ed3f6ad685b959ead7022518e1af76cd816f8e8ec7ccdda1ed4018e8f2223f8");  // sha256("alpha")
}

TEST(Snapshot, ExcludedDirRecordedNotDescended) {
  TempDir t;
  make_tree(t.path());
  const Snapshot a = take_snapshot(t.path(), {t.path() / "skip"});
  EXPECT_TRUE(a.count("skip"));
  EXPECT_FALSE(a.count("skip/inner"));
  write_file(t.path() / "skip" / "inner" / "new", "n");
  EXPECT_TRUE(diff_snapshots(a, take_snapshot(t.path(), {t.path() / "skip/"})).empty());
}

TEST(Snapshot, DetectsCreateRemoveContentChmodLinks) {
  TempDir t;
  make_tree(t.path());
  const Snapshot before = take_snapshot(t.path());
  write_file(t.path() / "new.txt", "new");
  fs::remove(t.path() / "dir" / "sub" / "c.txt");
  write_file(t.path() / "a.txt", "ALPHA");  // same size, other content
  fs::permissions(t.path() / "dir" / "b.txt", fs::perms::owner_all);
  fs::create_hard_link(t.path() / "dir" / "b.txt", t.path() / "hard");
  const std::vector<FsChange> changes = diff_snapshots(before, take_snapshot(t.path()));
  const std::string all = dump(changes);

  const FsChange* c = find_change(changes, "new.txt");
  ASSERT_NE(c, nullptr) << all;
  EXPECT_EQ(c->kind, "created");
  c = find_change(changes, "dir/sub/c.txt");
  ASSERT_NE(c, nullptr) << all;
  EXPECT_EQ(c->kind, "removed");
  c = find_change(changes, "a.txt");
  ASSERT_NE(c, nullptr) << all;
  EXPECT_EQ(c->kind, "modified");
  EXPECT_NE(c->detail.find("digest"), std::string::npos) << all;
  EXPECT_EQ(c->detail.find("size"), std::string::npos) << all;
  c = find_change(changes, "dir/b.txt");
  ASSERT_NE(c, nullptr) << all;
  EXPECT_NE(c->detail.find("mode"), std::string::npos) << all;
  EXPECT_NE(c->detail.find("nlink"), std::string::npos) << all;
}

TEST(Snapshot, DetectsRenameOverAsInodeChange) {
  TempDir t;
  make_tree(t.path());
  const Snapshot before = take_snapshot(t.path());
  write_file(t.path() / "tmp", "alpha");  // same content, same size
  fs::rename(t.path() / "tmp", t.path() / "a.txt");
  const std::vector<FsChange> changes = diff_snapshots(before, take_snapshot(t.path()));
  const FsChange* c = find_change(changes, "a.txt");
  ASSERT_NE(c, nullptr) << dump(changes);
  EXPECT_NE(c->detail.find("inode"), std::string::npos) << dump(changes);
  EXPECT_EQ(c->detail.find("digest"), std::string::npos) << dump(changes);
}

TEST(Snapshot, DetectsUserXattr) {
  TempDir t;
  make_tree(t.path());
  const Snapshot before = take_snapshot(t.path());
  if (::setxattr((t.path() / "a.txt").c_str(), "user.x", "1", 1, 0) != 0)
    GTEST_SKIP() << "user xattrs unsupported here: " << std::strerror(errno);
  const std::vector<FsChange> changes = diff_snapshots(before, take_snapshot(t.path()));
  const FsChange* c = find_change(changes, "a.txt");
  ASSERT_NE(c, nullptr) << dump(changes);
  EXPECT_EQ(c->kind, "modified");
  EXPECT_EQ(c->detail, "xattr:user.x");
}

TEST(Snapshot, DetectsPosixAclAdded) {
  TempDir t;
  make_tree(t.path());
  const Snapshot before = take_snapshot(t.path());
  LaunchSpec spec;
  spec.argv = {"setfacl", "-m", "u:nobody:r", (t.path() / "a.txt").string()};
  spec.env = base_env();
  const LaunchResult r = run_process(spec, nullptr, nullptr);
  if (!r.started || !r.exited || r.exit_code != 0)
    GTEST_SKIP() << "setfacl unavailable or ACLs unsupported: " << r.start_error << r.err;
  const std::vector<FsChange> changes = diff_snapshots(before, take_snapshot(t.path()));
  const FsChange* c = find_change(changes, "a.txt");
  ASSERT_NE(c, nullptr) << dump(changes);
  EXPECT_NE(c->detail.find("xattr:system.posix_acl_access"), std::string::npos) << dump(changes);
}

// The real kernel's ACL bytes through the snapshot into classify_access (access_change.h), on a
// directory that carries the planted mark: a grant to `nobody` must show as a new entry.
TEST(Snapshot, SetfaclGrantsClassifiedOverThePlantedMark) {
  TempDir t;
  make_tree(t.path());
  try {
    plant_host_marks(t.path() / "dir", "nonce");
  } catch (const Error& e) {
    GTEST_SKIP() << "ACLs unsupported here: " << e.what();
  }
  EXPECT_NE(mark_uid(), 65534u);
  EXPECT_EQ(mark_uid(), mark_uid());  // once per run
  const Snapshot marked = take_snapshot(t.path());
  auto setfacl = [&](const std::string& rule) {
    LaunchSpec spec;
    spec.argv = {"setfacl", "-m", rule, (t.path() / "dir").string()};
    spec.env = base_env();
    const LaunchResult r = run_process(spec, nullptr, nullptr);
    return r.started && r.exited && r.exit_code == 0;
  };
  if (!setfacl("u:nobody:rx")) GTEST_SKIP() << "setfacl unavailable";
  const Snapshot read_grant = take_snapshot(t.path());
  ASSERT_NE(marked.at("dir"), read_grant.at("dir")) << "a grant to nobody r-x changed nothing visible";
  EXPECT_EQ(classify_access(&marked.at("dir"), &read_grant.at("dir")).move, AccessMove::kGrantsRead);
  ASSERT_TRUE(setfacl("u:nobody:rwx"));
  const Snapshot write_grant = take_snapshot(t.path());
  const AccessChange w = classify_access(&read_grant.at("dir"), &write_grant.at("dir"));
  EXPECT_EQ(w.move, AccessMove::kWidens);
  EXPECT_NE(w.why.find("user:65534 gained w"), std::string::npos) << w.why;
  EXPECT_EQ(classify_access(&write_grant.at("dir"), &marked.at("dir")).move, AccessMove::kNarrows);
}

TEST(Snapshot, FloodIsCappedWithTruncatedEntry) {
  // 200k files: only affordable on tmpfs (minutes on some disks).
  std::error_code ec;
  if (!fs::is_directory("/dev/shm", ec) || ::access("/dev/shm", W_OK) != 0)
    GTEST_SKIP() << "needs a writable /dev/shm for a fast 200k-file tree";
  TempDir t("/dev/shm");
  fs::create_directories(t.path() / "flood");
  for (std::size_t i = 0; i < kMaxSnapshotEntries + 10; ++i) {
    const std::string p = (t.path() / "flood" / std::to_string(i)).string();
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << p << ": " << std::strerror(errno);
    ::close(fd);
  }
  const Snapshot s = take_snapshot(t.path());
  EXPECT_EQ(s.size(), kMaxSnapshotEntries + 1);
  ASSERT_TRUE(s.count("<truncated>"));
  EXPECT_NE(s.at("<truncated>").digest.find("truncated"), std::string::npos);
}

TEST(Snapshot, MissingRootIsEmpty) {
  TempDir t;
  EXPECT_TRUE(take_snapshot(t.path() / "missing").empty());
  FileState st;
  EXPECT_FALSE(stat_path(t.path() / "missing", st));
}

// ---------------------------------------------------------------------------
// Nonce listeners

struct HostPort {
  std::string host;
  int port = 0;
};

HostPort parse_spec(const std::string& spec) {  // "tcp:127.0.0.1:40123"
  const auto first = spec.find(':');
  const auto last = spec.rfind(':');
  HostPort hp;
  hp.host = spec.substr(first + 1, last - first - 1);
  if (!hp.host.empty() && hp.host.front() == '[') hp.host = hp.host.substr(1, hp.host.size() - 2);
  hp.port = std::stoi(spec.substr(last + 1));
  return hp;
}

int connect_to(const Endpoint& ep, int type) {
  const HostPort hp = parse_spec(ep.spec);
  const bool v6 = hp.host.find(':') != std::string::npos;
  const int fd = ::socket(v6 ? AF_INET6 : AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_storage ss{};
  socklen_t len;
  if (v6) {
    auto* sa = reinterpret_cast<sockaddr_in6*>(&ss);
    sa->sin6_family = AF_INET6;
    sa->sin6_port = htons(static_cast<uint16_t>(hp.port));
    ::inet_pton(AF_INET6, hp.host.c_str(), &sa->sin6_addr);
    len = sizeof *sa;
  } else {
    auto* sa = reinterpret_cast<sockaddr_in*>(&ss);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(static_cast<uint16_t>(hp.port));
    ::inet_pton(AF_INET, hp.host.c_str(), &sa->sin_addr);
    len = sizeof *sa;
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_text(const Endpoint& ep, int type, const std::string& text) {
  const int fd = connect_to(ep, type);
  if (fd < 0) return false;
  const bool ok = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

TEST(NonceListeners, TcpAndUdpV4ReceiveTheRightNonce) {
  NonceListeners listeners(nullptr, "not in this test");
  const auto tcp = listeners.endpoint("tcp4-loopback");
  const auto udp = listeners.endpoint("udp4-loopback");
  ASSERT_TRUE(tcp) << listeners.skip_reason("tcp4-loopback");
  ASSERT_TRUE(udp) << listeners.skip_reason("udp4-loopback");
  EXPECT_EQ(tcp->spec.rfind("tcp:127.0.0.1:", 0), 0u) << tcp->spec;
  EXPECT_TRUE(tcp->loopback);
  EXPECT_EQ(listeners.skip_reason("tcp4-loopback"), "");
  EXPECT_NE(listeners.skip_reason("tcp4-external").find("not in this test"), std::string::npos);
  EXPECT_FALSE(listeners.endpoint("tcp4-external"));
  EXPECT_NE(listeners.skip_reason("bogus"), "");

  const std::string mine = test_nonce("tcp-udp");
  const std::string other = "0123456789abcdef0123456789abcdef";
  ASSERT_TRUE(send_text(*tcp, SOCK_STREAM, std::string(kNonceMarker) + mine + "\n"));
  ASSERT_TRUE(send_text(*udp, SOCK_DGRAM, "hello\nBREAKOUT-NONCE " + mine + "\n"));
  EXPECT_TRUE(listeners.wait_for(mine, "tcp4-loopback", 3s));
  EXPECT_TRUE(listeners.wait_for(mine, "udp4-loopback", 3s));
  EXPECT_EQ(listeners.received(mine), (std::set<std::string>{"tcp4-loopback", "udp4-loopback"}));
  EXPECT_FALSE(listeners.wait_for(other, "tcp4-loopback", 200ms));
  EXPECT_TRUE(listeners.received(other).empty());
}

TEST(NonceListeners, MarkerInsideHttpConnectAndMalformedNonces) {
  NonceListeners listeners(nullptr, "");
  const auto tcp = listeners.endpoint("tcp4-loopback");
  const auto udp = listeners.endpoint("udp4-loopback");
  ASSERT_TRUE(tcp && udp);
  const std::string nonce = test_nonce("connect");
  ASSERT_TRUE(send_text(*tcp, SOCK_STREAM,
                        "CONNECT 198.18.0.2:443 HTTP/1.1\r\nX-Probe: BREAKOUT-NONCE " + nonce + "\r\n\r\n"));
  EXPECT_TRUE(listeners.wait_for(nonce, "tcp4-loopback", 3s));
  // Too short, too long, upper case: not nonces.
  ASSERT_TRUE(send_text(*udp, SOCK_DGRAM, "BREAKOUT-NONCE abc1234\n"));
  ASSERT_TRUE(send_text(*udp, SOCK_DGRAM, "BREAKOUT-NONCE " + std::string(65, 'a') + "\n"));
  ASSERT_TRUE(send_text(*udp, SOCK_DGRAM, "BREAKOUT-NONCE ABCDEF0123\n"));
  const std::string last = test_nonce("last");
  ASSERT_TRUE(send_text(*udp, SOCK_DGRAM, "BREAKOUT-NONCE " + last));  // datagram end terminates it
  EXPECT_TRUE(listeners.wait_for(last, "udp4-loopback", 3s));
  EXPECT_TRUE(listeners.received("abc1234").empty());
  EXPECT_TRUE(listeners.received(std::string(64, 'a')).empty());
  EXPECT_TRUE(listeners.received("abcdef0123").empty());
}

TEST(NonceListeners, Ipv6LoopbackOrSkipReason) {
  NonceListeners listeners(nullptr, "");
  const auto tcp6 = listeners.endpoint("tcp6-loopback");
  if (!tcp6) {
    EXPECT_NE(listeners.skip_reason("tcp6-loopback"), "");
    GTEST_SKIP() << "no IPv6 loopback: " << listeners.skip_reason("tcp6-loopback");
  }
  EXPECT_EQ(tcp6->spec.rfind("tcp:[::1]:", 0), 0u) << tcp6->spec;
  const std::string nonce = test_nonce("v6");
  ASSERT_TRUE(send_text(*tcp6, SOCK_STREAM, "BREAKOUT-NONCE " + nonce + "\n"));
  EXPECT_TRUE(listeners.wait_for(nonce, "tcp6-loopback", 3s));
}

// net:tcp4-host / tcp6-host: the host's own non-loopback address (eth0's), or the reason there is none.
TEST(NonceListeners, HostAddressOrSkipReason) {
  NonceListeners listeners(nullptr, "");
  int tried = 0;
  for (const char* name : {"tcp4-host", "tcp6-host"}) {
    const auto ep = listeners.endpoint(name);
    if (!ep) {
      EXPECT_NE(listeners.skip_reason(name), "") << name;
      continue;
    }
    ++tried;
    EXPECT_FALSE(ep->loopback);
    EXPECT_EQ(ep->spec.rfind("tcp:127.", 0), std::string::npos) << ep->spec;
    EXPECT_EQ(ep->spec.find("[::1]"), std::string::npos) << ep->spec;
    EXPECT_EQ(ep->spec.find("198.18."), std::string::npos) << ep->spec;  // never the harness's own veth
    const std::string nonce = test_nonce(name);
    ASSERT_TRUE(send_text(*ep, SOCK_STREAM, "BREAKOUT-NONCE " + nonce + "\n")) << ep->spec;
    EXPECT_TRUE(listeners.wait_for(nonce, name, 3s)) << ep->spec;
    EXPECT_EQ(listeners.received(nonce), (std::set<std::string>{name}));  // not the loopback listener
  }
  if (tried == 0) GTEST_SKIP() << "no host address: " << listeners.skip_reason("tcp4-host");
}

TEST(NonceListeners, GarbageFloodIsBounded) {
  NonceListeners listeners(nullptr, "");
  const auto tcp = listeners.endpoint("tcp4-loopback");
  const auto udp = listeners.endpoint("udp4-loopback");
  ASSERT_TRUE(tcp && udp);
  const long rss_before = rss_kib();
  const std::string garbage(1 << 20, 'G');
  for (int round = 0; round < 8; ++round) {
    const int fd = connect_to(*tcp, SOCK_STREAM);
    ASSERT_GE(fd, 0);
    std::size_t sent = 0;
    while (sent < garbage.size()) {  // the listener stops reading after 4 KiB: expect a reset
      const ssize_t n = ::send(fd, garbage.data() + sent, garbage.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  const int ufd = connect_to(*udp, SOCK_DGRAM);
  ASSERT_GE(ufd, 0);
  for (int i = 0; i < 256; ++i) ::send(ufd, garbage.data(), 4096, MSG_NOSIGNAL);
  ::close(ufd);
  // Connections that send nothing at all are dropped after 2 s.
  std::vector<int> idle;
  for (int i = 0; i < 80; ++i) idle.push_back(connect_to(*tcp, SOCK_STREAM));
  // Still listening and correct afterwards (once the idle ones time out).
  const std::string nonce = test_nonce("after-flood");
  ASSERT_TRUE(send_text(*tcp, SOCK_STREAM, "BREAKOUT-NONCE " + nonce + "\n"));
  EXPECT_TRUE(listeners.wait_for(nonce, "tcp4-loopback", 10s));
  for (int fd : idle)
    if (fd >= 0) ::close(fd);
  const long rss_after = rss_kib();
  EXPECT_LT(rss_after - rss_before, 16 * 1024) << "RSS grew from " << rss_before << " to " << rss_after << " KiB";
}

TEST(UnixNonceListener, ReceivesAndUnlinks) {
  TempDir t;
  const fs::path path = t.path() / "nonce.sock";
  const std::string nonce = test_nonce("unix");
  {
    UnixNonceListener listener(path.string());
    EXPECT_EQ(listener.spec(), "unix:" + path.string());
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0) << std::strerror(errno);
    const std::string msg = "BREAKOUT-NONCE " + nonce + "\n";
    ASSERT_EQ(::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL), static_cast<ssize_t>(msg.size()));
    ::close(fd);
    EXPECT_TRUE(listener.wait_for(nonce, 3s));
    EXPECT_FALSE(listener.wait_for("0123456789abcdef", 100ms));
  }
  EXPECT_FALSE(fs::exists(fs::symlink_status(path)));
}

// ---------------------------------------------------------------------------
// ExternalHost

TEST(ExternalHost, HostReachesNamespaceButUnsharedNetSandboxDoesNot) {
  std::string why;
  const std::string run_nonce = test_nonce("netns");
  auto external = ExternalHost::create(run_nonce, &why);
  if (!external) GTEST_SKIP() << "no external host here: " << why;
  const std::string ns = external->name();
  EXPECT_EQ(ns, "bo-" + run_nonce.substr(0, 8));
  EXPECT_EQ(external->address().rfind("198.18.", 0), 0u);
  {
    NonceListeners listeners(external.get(), "");
    const auto tcp = listeners.endpoint("tcp4-external");
    const auto udp = listeners.endpoint("udp4-external");
    ASSERT_TRUE(tcp) << listeners.skip_reason("tcp4-external");
    ASSERT_TRUE(udp) << listeners.skip_reason("udp4-external");
    EXPECT_FALSE(tcp->loopback);
    EXPECT_EQ(tcp->spec.rfind("tcp:" + external->address() + ":", 0), 0u) << tcp->spec;
    const HostPort hp = parse_spec(tcp->spec);
    const HostPort up = parse_spec(udp->spec);

    // A plain host process reaches the namespace over the veth pair.
    const std::string host_nonce = test_nonce("from-host");
    const LaunchResult host = run_process(
        sh("exec bash -c 'echo BREAKOUT-NONCE " + host_nonce + " > /dev/tcp/" + hp.host + "/" +
           std::to_string(hp.port) + "; echo BREAKOUT-NONCE " + host_nonce + " > /dev/udp/" + up.host + "/" +
           std::to_string(up.port) + "'"),
        nullptr, nullptr);
    ASSERT_TRUE(host.started) << host.start_error;
    EXPECT_EQ(host.exit_code, 0) << host.err;
    EXPECT_TRUE(listeners.wait_for(host_nonce, "tcp4-external", 3s));
    EXPECT_TRUE(listeners.wait_for(host_nonce, "udp4-external", 3s));
    // The loopback listeners live in the host namespace, not in the external one.
    EXPECT_EQ(listeners.received(host_nonce).count("tcp4-loopback"), 0u);

    // A probe inside bwrap --unshare-net cannot.
    const std::string boxed_nonce = test_nonce("from-bwrap");
    LaunchSpec boxed = sh("");
    boxed.argv = {"bwrap", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                  "bash", "-c",
                  "echo BREAKOUT-NONCE " + boxed_nonce + " > /dev/tcp/" + hp.host + "/" + std::to_string(hp.port)};
    boxed.timeout = 20s;
    const LaunchResult b = run_process(boxed, nullptr, nullptr);
    ASSERT_TRUE(b.started) << b.start_error;
    if (b.err.rfind("bwrap:", 0) == 0) GTEST_SKIP() << "bwrap cannot make its sandbox here: " << b.err;
    EXPECT_TRUE(b.exited);
    EXPECT_NE(b.exit_code, 0) << "connect from inside --unshare-net succeeded?\n" << b.err;
    EXPECT_NE(b.err.find("connect"), std::string::npos) << b.err;
    EXPECT_FALSE(listeners.wait_for(boxed_nonce, "tcp4-external", 500ms));
    EXPECT_TRUE(listeners.received(boxed_nonce).empty());
  }
  external.reset();
  // Torn down: no namespace, no veth left.
  EXPECT_FALSE(fs::exists("/run/netns/" + ns));
  EXPECT_FALSE(fs::exists("/sys/class/net/bo" + run_nonce.substr(0, 8) + "h"));
}

TEST(ExternalHost, FailureHalfwayUndoesWhatWasDone) {
  const std::string run_nonce = test_nonce("netns-fail");
  const std::string tag = run_nonce.substr(0, 8);
  // Occupy the host-side veth name, so step 2 of create() fails after the
  // namespace was added.
  LaunchSpec spec;
  spec.argv = {"ip", "link", "add", "bo" + tag + "h", "type", "veth", "peer", "name", "bo" + tag + "x"};
  spec.env = base_env();
  const LaunchResult pre = run_process(spec, nullptr, nullptr);
  if (!pre.started || pre.exit_code != 0)
    GTEST_SKIP() << "cannot create veth pairs here (needs root + iproute2): " << pre.start_error << pre.err;
  std::string why;
  auto external = ExternalHost::create(run_nonce, &why);
  spec.argv = {"ip", "link", "del", "bo" + tag + "h"};
  const LaunchResult del = run_process(spec, nullptr, nullptr);
  EXPECT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(external, nullptr);
  EXPECT_NE(why.find("link add"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists("/run/netns/bo-" + tag)) << "namespace left behind after a failed create";
}

}  // namespace
}  // namespace breakout
