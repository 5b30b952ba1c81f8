// The Windows launcher under Wine (or Windows): exit codes, concurrent drain, argv and env round trips, jobs, timeouts, the handle list.
//
// Children: the cross-built probes (exit, pipe-flood) and breakout-win-test-child
// (tests/win/child_helper.cc), all beside this executable. Wine-specific
// expectations are stated where a test depends on them (docs/windows.md).
#include <gtest/gtest.h>
#include <windows.h>

#include <atomic>
#include <thread>

#include "harness/core/env_block.h"
#include "harness/core/wtf8.h"
#include "harness/platform/os.h"
#include "harness/platform/process.h"
#include "harness/platform/win/launch.h"
#include "harness/platform/win/pipe_reader.h"
#include "harness/platform/win/unique_handle.h"
#include "shared/flood_pattern.h"

using namespace breakout;
using namespace std::chrono_literals;

namespace {

std::string bin(const std::string& name) { return (self_exe_dir() / (name + ".exe")).string(); }

// What every child needs to start at all: SystemRoot (DLL loading; Wine's too).
std::vector<std::string> base_env() {
  std::vector<std::string> env;
  for (const char* name : {"SystemRoot", "windir", "PATH"})
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  return env;
}

LaunchSpec spec_for(std::vector<std::string> argv) {
  LaunchSpec s;
  s.argv = std::move(argv);
  s.env = base_env();
  s.timeout = 30s;
  return s;
}

std::string unhex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// Lines "tag HEX" of the helper's output, decoded, for one tag.
std::vector<std::string> tagged(const std::string& out, const std::string& tag) {
  std::vector<std::string> v;
  std::size_t at = 0;
  while (at < out.size()) {
    std::size_t nl = out.find('\n', at);
    if (nl == std::string::npos) nl = out.size();
    std::string line = out.substr(at, nl - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(tag + " ", 0) == 0) v.push_back(unhex(line.substr(tag.size() + 1)));
    at = nl + 1;
  }
  return v;
}

bool process_alive(DWORD pid) {
  UniqueHandle h(::OpenProcess(SYNCHRONIZE, FALSE, pid));
  return h && ::WaitForSingleObject(h.get(), 0) == WAIT_TIMEOUT;
}

DWORD grandchild_pid(const std::string& out) {
  const std::size_t at = out.find("grandchild ");
  return at == std::string::npos ? 0 : static_cast<DWORD>(std::stoul(out.substr(at + 11)));
}

// Wine exports wine_get_version from ntdll; Windows does not.
bool under_wine() {
  const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  return ntdll != nullptr && ::GetProcAddress(ntdll, "wine_get_version") != nullptr;
}

// Polls `pred` up to `limit` (process exit is asynchronous under Wine's server too).
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 5000ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

}  // namespace

TEST(WinLauncher, PassesExitCodesThrough) {
  for (int code : {0, 1, 42, 255}) {
    const LaunchResult r = run_process(spec_for({bin("breakout-probe-exit"), "--code", std::to_string(code)}), nullptr, nullptr);
    ASSERT_TRUE(r.started) << r.start_error;
    EXPECT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, code);
    EXPECT_FALSE(r.timed_out);
    EXPECT_GT(r.pid, 0);
  }
}

TEST(WinLauncher, ReportsAMissingProgramAsNotStarted) {
  const LaunchResult r = run_process(spec_for({"breakout-no-such-program-7"}), nullptr, nullptr);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("[not-found]"), std::string::npos) << r.start_error;
  const LaunchResult r2 = run_process(spec_for({bin("no-such-dir\\x")}), nullptr, nullptr);
  EXPECT_FALSE(r2.started);
  EXPECT_NE(r2.start_error.find("[win32] CreateProcessW"), std::string::npos) << r2.start_error;
}

// pipe-flood alternates 4..64 KiB chunks between stdout and stderr: a launcher
// that drains one pipe at a time deadlocks (and the 30 s timeout fires).
TEST(WinLauncher, DrainsBothStreamsConcurrentlyByteExact) {
  const std::uint64_t n = 1u << 20;
  const LaunchResult r =
      run_process(spec_for({bin("breakout-probe-pipe-flood"), "--bytes", std::to_string(n)}), nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(check_flood(1, r.out, n), "");
  EXPECT_EQ(check_flood(2, r.err, n), "");
  EXPECT_EQ(r.out_total, n);
  EXPECT_EQ(r.err_total, n);
  EXPECT_LT(r.duration, 20s);
}

TEST(WinLauncher, BoundsCaptureButCountsEveryByte) {
  LaunchSpec s = spec_for({bin("breakout-probe-pipe-flood"), "--bytes", "300000"});
  s.max_capture = 1000;
  const LaunchResult r = run_process(s, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_EQ(r.err.size(), 1000u);
  EXPECT_EQ(r.out_total, 300000u);
  EXPECT_EQ(r.err_total, 300000u);
}

// The command line we build is split back identically by the child's C runtime
// (Wine's msvcrt wmain parsing) and by CommandLineToArgvW (Wine's shell32).
TEST(WinLauncher, ArgvRoundTripsThroughAChild) {
  const std::vector<std::string> args = {"argv", "", " ", "a b", "\"", "\\", "\\\\\"", "a\\\\", "\"\"",
                                         "a b\\", "x\ty", "ünï cødé ✓", "%PATH%", "^&|<>", "--f=\"v w\"\\"};
  std::vector<std::string> argv = {bin("breakout-win-test-child")};
  argv.insert(argv.end(), args.begin(), args.end());
  const LaunchResult r = run_process(spec_for(argv), nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> crt = tagged(r.out, "crt"), shell = tagged(r.out, "shell");
  ASSERT_FALSE(crt.empty());
  ASSERT_FALSE(shell.empty());
  EXPECT_EQ(std::vector<std::string>(crt.begin() + 1, crt.end()), args);
  EXPECT_EQ(std::vector<std::string>(shell.begin() + 1, shell.end()), args);
  EXPECT_EQ(shell[0], argv[0]);
}

// The block reaches the child exactly as encoded: sorted case-insensitively,
// non-ASCII intact, and both spellings of a case-variant name kept.
// Wine-specific expectation (Wine 8.0, Debian 12): Wine's loader adds its own
// WINE* variables and SystemDrive, and re-appends SystemRoot, at the end of the
// child's block; those are taken out before comparing, and only those.
TEST(WinLauncher, EnvironmentBlockReachesTheChildExactly) {
  LaunchSpec s = spec_for({bin("breakout-win-test-child"), "env"});
  s.env.push_back("Zeta_Ünï=välue ✓ 𝄞");
  s.env.push_back("case_var=lower");
  s.env.push_back("CASE_VAR=upper");
  s.env.push_back("EMPTY=");
  const LaunchResult r = run_process(s, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> want;
  env_block::Entries entries;
  for (const std::string& kv : s.env) entries.emplace_back(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
  for (const auto& [name, value] : env_block::decode_windows(env_block::encode_windows(entries)))
    want.push_back(name + "=" + value);
  std::vector<std::string> got = tagged(r.out, "env");
  if (under_wine()) {
    auto wine_added = [](const std::string& kv) {
      return kv.rfind("WINE", 0) == 0 || kv.rfind("SystemDrive=", 0) == 0 || kv.rfind("SystemRoot=", 0) == 0;
    };
    std::erase_if(got, wine_added);
    std::erase_if(want, wine_added);
  }
  EXPECT_EQ(got, want);
}

TEST(WinLauncher, TimeoutKillsTheChildAndItsGrandchild) {
  Containment box("timeout", "nonce-timeout-0001");
  LaunchSpec s = spec_for({bin("breakout-win-test-child"), "grandchild", "60000", "hold"});
  // Long enough for the child to start its grandchild and print its pid first: under Wine on a
  // loaded 2-core machine (load 13) 1.5 s was not, and the test read no pid.
  s.timeout = 4000ms;
  const LaunchResult r = run_process(s, &box, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.term_signal, 9);
  EXPECT_LT(r.duration, 10s);
  const DWORD gc = grandchild_pid(r.out);
  ASSERT_NE(gc, 0u) << r.out;
  EXPECT_TRUE(eventually([&] { return !process_alive(gc); })) << "grandchild " << gc << " survived the timeout";
  EXPECT_TRUE(eventually([&] { return box.live_count() == 0; }));
}

// A child that exits leaving a grandchild: the run is over, the job still
// counts the survivor, and kill_all() ends it.
TEST(WinLauncher, JobReportsSurvivorsUntilKilled) {
  Containment box("survivor", "nonce-survivor-0001");
  const LaunchResult r = run_process(spec_for({bin("breakout-win-test-child"), "grandchild", "60000"}), &box, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.drain_timed_out);  // the grandchild inherited no pipe
  const DWORD gc = grandchild_pid(r.out);
  ASSERT_NE(gc, 0u) << r.out;
  EXPECT_TRUE(eventually([&] { return box.live_count() == 1; })) << box.live_count();
  EXPECT_TRUE(process_alive(gc));
  EXPECT_EQ(box.kill_all(), 1);
  EXPECT_EQ(box.live_count(), 0);
  EXPECT_TRUE(eventually([&] { return !process_alive(gc); }));
}

// Nested jobs (Windows 8+, "Nested Jobs" on Microsoft Learn): a spawner that puts
// its child into a job of its own does not take it out of ours; the box still
// counts and kills it.
TEST(WinLauncher, NestedJobStaysInsideTheBox) {
  Containment box("nested", "nonce-nested-0001");
  const LaunchResult r = run_process(spec_for({bin("breakout-win-test-child"), "nested-job", "60000"}), &box, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const DWORD gc = grandchild_pid(r.out);
  ASSERT_NE(gc, 0u) << r.out;
  EXPECT_TRUE(eventually([&] { return box.live_count() == 1; })) << box.live_count();
  EXPECT_EQ(box.kill_all(), 1);
  EXPECT_TRUE(eventually([&] { return !process_alive(gc); }));
}

// A grandchild holding our stdout keeps the pipe open after the child exits:
// the run ends drain_after_exit later with drain_timed_out, not never.
TEST(WinLauncher, DrainBoundEndsARunWhoseGrandchildHoldsThePipe) {
  Containment box("drain", "nonce-drain-0001");
  LaunchSpec s = spec_for({bin("breakout-win-test-child"), "grandchild", "60000", "pipe"});
  s.drain_after_exit = 500ms;
  const auto t0 = std::chrono::steady_clock::now();
  const LaunchResult r = run_process(s, &box, nullptr);
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.exited);
  EXPECT_TRUE(r.drain_timed_out);
  EXPECT_NE(grandchild_pid(r.out), 0u) << r.out;  // printed before the exit: drained
  EXPECT_GE(took, 500ms);
  EXPECT_LT(took, 10s);
  EXPECT_EQ(box.kill_all(), 1);
}

// Without a box the run's own job dies with the call (KILL_ON_JOB_CLOSE).
TEST(WinLauncher, WithoutABoxNothingOutlivesTheCall) {
  const LaunchResult r = run_process(spec_for({bin("breakout-win-test-child"), "grandchild", "60000"}), nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  const DWORD gc = grandchild_pid(r.out);
  ASSERT_NE(gc, 0u) << r.out;
  EXPECT_TRUE(eventually([&] { return !process_alive(gc); })) << "grandchild " << gc << " outlived its job";
}

TEST(WinLauncher, CancellationKillsTheRun) {
  std::atomic<bool> cancel{false};
  std::thread t([&] {
    std::this_thread::sleep_for(300ms);
    cancel = true;
  });
  const LaunchResult r = run_process(spec_for({bin("breakout-win-test-child"), "sleep", "60000"}), nullptr, &cancel);
  t.join();
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.exited);
  EXPECT_LT(r.duration, 10s);
}

// PROC_THREAD_ATTRIBUTE_HANDLE_LIST: an inheritable event that is not listed
// does not reach the child (bInheritHandles is TRUE); the control lists it and
// the child signals it through the very same handle value.
TEST(WinLauncher, OnlyListedHandlesAreInherited) {
  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  UniqueHandle event(::CreateEventW(&inheritable, TRUE, FALSE, nullptr));
  ASSERT_TRUE(event);
  const std::string value = std::to_string(reinterpret_cast<std::uintptr_t>(event.get()));
  const LaunchSpec s = spec_for({bin("breakout-win-test-child"), "signal-handle", value});

  const LaunchResult r = run_process(s, nullptr, nullptr);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(::WaitForSingleObject(event.get(), 0), static_cast<DWORD>(WAIT_TIMEOUT)) << "leaked: " << r.out;
  EXPECT_NE(r.out.find("not set"), std::string::npos) << r.out;

  // Control: the same launch with the event on the list.
  win::JobObject job = win::JobObject::create();
  UniqueHandle nul(::CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ, &inheritable, OPEN_EXISTING, 0, nullptr));
  std::string out, err;
  std::size_t out_n = 0, err_n = 0;
  win::PipeReader out_pipe(&out, &out_n, 1 << 20), err_pipe(&err, &err_n, 1 << 20);
  win::Child c = win::launch_in_job(s, job, nul.get(), out_pipe.child_end(), err_pipe.child_end(), {event.get()});
  ASSERT_EQ(::WaitForSingleObject(c.process.get(), 10000), static_cast<DWORD>(WAIT_OBJECT_0));
  EXPECT_EQ(::WaitForSingleObject(event.get(), 0), static_cast<DWORD>(WAIT_OBJECT_0)) << "the listed handle did not reach the child";
}
