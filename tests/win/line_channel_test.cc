// The Windows LineChannel under Wine (or Windows): lines both ways, the bounds (over-long line, silent child, death mid-line), stderr tail, kill on destruction.
//
// The peer is breakout-win-test-child (tests/win/child_helper.cc: echo, line N,
// die-mid-line, stderr-flood N, sleep MS), beside this executable. Its C runtime
// writes "\r\n" (text mode), which the channel reads as a line end.
#include <gtest/gtest.h>
#include <windows.h>

#include <string>
#include <thread>
#include <vector>

#include "harness/core/error.h"
#include "harness/platform/line_channel.h"
#include "harness/platform/os.h"
#include "harness/platform/process.h"
#include "harness/platform/win/unique_handle.h"
#include "tests/support/busy_cpus.h"

using namespace breakout;
using namespace std::chrono_literals;

namespace {

LaunchSpec child(std::vector<std::string> args) {
  LaunchSpec s;
  s.argv = {(self_exe_dir() / "breakout-win-test-child.exe").string()};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  for (const char* name : {"SystemRoot", "windir", "PATH"})
    if (const char* v = std::getenv(name)) s.env.push_back(std::string(name) + "=" + v);
  return s;
}

bool process_alive(int pid) {
  UniqueHandle h(::OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid)));
  return h && ::WaitForSingleObject(h.get(), 0) == WAIT_TIMEOUT;
}

}  // namespace

TEST(WinLineChannel, EchoesLinesBothWaysAndReportsTheExit) {
  auto ch = LineChannel::start(child({"echo"}), nullptr, {});
  const std::vector<std::string> texts = {"hello", "{\"id\":1,\"op\":\"hello\"}", std::string(30000, 'a')};
  for (const std::string& text : texts) {
    ch->send_line(text, 5s);
    std::string line;
    ASSERT_EQ(ch->read_line(&line, 10s), LineChannel::Read::kLine);
    EXPECT_EQ(line, "echo " + text.substr(0, 4095));  // the child reads at most 4095 bytes per fgets
    // The rest of the long line comes back as more lines (about 30 KB: less than the pipe's 64 KiB,
    // so the child never blocks on a stdout nobody reads while we still write its stdin).
    if (text.size() > 4000) break;
  }
  ch->send_line("quit", 5s);
  const auto status = ch->wait_exit(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 7);
  EXPECT_EQ(describe_wait_status(*status), "exited with status 7");
  ch->finish_stderr(5s);
  EXPECT_NE(ch->stderr_tail().find("err hello"), std::string::npos) << ch->stderr_tail();
}

TEST(WinLineChannel, EofAfterCloseInput) {
  auto ch = LineChannel::start(child({"echo"}), nullptr, {});
  ch->send_line("one", 5s);
  ch->close_input();
  std::string line;
  ASSERT_EQ(ch->read_line(&line, 10s), LineChannel::Read::kLine);
  EXPECT_EQ(line, "echo one");
  EXPECT_EQ(ch->read_line(&line, 10s), LineChannel::Read::kEof);
  const auto status = ch->wait_exit(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 0);
  EXPECT_THROW(ch->send_line("late", 1s), Error);
}

TEST(WinLineChannel, RefusesALineLongerThanTheBound) {
  LineChannel::Limits limits;
  limits.max_line = 1024;
  auto ch = LineChannel::start(child({"line", "200000"}), nullptr, limits);
  std::string line;
  EXPECT_EQ(ch->read_line(&line, 10s), LineChannel::Read::kTooLong);
  EXPECT_TRUE(line.empty());
  // A line of exactly the bound still passes.
  auto ok = LineChannel::start(child({"line", "1024"}), nullptr, limits);
  ASSERT_EQ(ok->read_line(&line, 10s), LineChannel::Read::kLine);
  EXPECT_EQ(line.size(), 1024u);
}

TEST(WinLineChannel, TimesOutOnASilentChildAndKillsItOnDestruction) {
  int pid = 0;
  {
    auto ch = LineChannel::start(child({"sleep", "60000"}), nullptr, {});
    pid = ch->pid();
    std::string line;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(ch->read_line(&line, 300ms), LineChannel::Read::kTimeout);
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_GE(took, 250ms);
    EXPECT_LT(took, 5s);
    EXPECT_FALSE(ch->wait_exit(100ms).has_value());
    EXPECT_TRUE(process_alive(pid));
  }
  const auto end = std::chrono::steady_clock::now() + 5s;
  while (process_alive(pid) && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(process_alive(pid)) << "the silent child survived the channel";
}

TEST(WinLineChannel, ChildDyingMidLineIsEofNotALine) {
  auto ch = LineChannel::start(child({"die-mid-line"}), nullptr, {});
  std::string line;
  EXPECT_EQ(ch->read_line(&line, 10s), LineChannel::Read::kEof);
  EXPECT_TRUE(line.empty()) << line;
  const auto status = ch->wait_exit(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 3);
}

TEST(WinLineChannel, KeepsTheLastStderrBytesAndCountsAll) {
  LineChannel::Limits limits;
  limits.stderr_keep = 1000;
  auto ch = LineChannel::start(child({"stderr-flood", "300000"}), nullptr, limits);
  std::string line;
  ASSERT_EQ(ch->read_line(&line, 10s), LineChannel::Read::kLine);
  EXPECT_EQ(line, "done");
  ASSERT_TRUE(ch->wait_exit(10s).has_value());
  ch->finish_stderr(5s);
  EXPECT_EQ(ch->stderr_total(), 300000u);
  const std::string tail = ch->stderr_tail();
  ASSERT_EQ(tail.size(), 1000u);
  EXPECT_EQ(tail.substr(tail.size() - 10), "0123456789");  // the last bytes, not the first
}

TEST(WinLineChannel, CatchingUpCountsTheStderrWrittenBeforeTheAnswer) {
  // No wait for the child's exit or stderr's end: the catch-up alone must count every byte
  // written before "done" (the pipe's and a completed read's not yet taken). Spinning threads
  // stand for a loaded runner, where the drain thread is not scheduled at once.
  const test_support::BusyCpus load;
  for (int round = 0; round < 10; ++round) {
    auto ch = LineChannel::start(child({"stderr-flood", "300000"}), nullptr, {});
    std::string line;
    EXPECT_EQ(ch->read_line(&line, 10s), LineChannel::Read::kLine);
    EXPECT_EQ(line, "done");
    ch->catch_up_stderr(5s);
    EXPECT_EQ(ch->stderr_total(), 300000u) << "round " << round;
  }
}

TEST(WinLineChannel, KillEndsTheChildAndSaysSo) {
  Containment box("line-channel-kill", "n");
  auto ch = LineChannel::start(child({"sleep", "60000"}), &box, {});
  EXPECT_EQ(box.live_count(), 1);
  ch->kill();
  const auto status = ch->wait_exit(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(describe_wait_status(*status), "killed (TerminateProcess/TerminateJobObject)");
}
