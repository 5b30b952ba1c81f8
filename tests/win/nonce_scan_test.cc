// The Windows nonce scan and Containment's second net (harness/platform/win/nonce_scan.h): escapees outside the job, under Wine.
//
// A beater that WMI, the Task Scheduler or explorer started is not in the box's job; the
// harness finds it by the nonce on its command line and kills it. These start such a process
// directly (outside any job of ours), and the same with another nonce or inside the job.
#include <windows.h>

#include <gtest/gtest.h>

#include <string>

#include "harness/platform/os.h"
#include "harness/platform/process.h"
#include "harness/platform/win/job.h"
#include "harness/platform/win/nonce_scan.h"
#include "harness/platform/win/unique_handle.h"

using namespace breakout;

namespace {

constexpr char kNonce[] = "0123456789abcdef0123456789abcdef";
constexpr char kOther[] = "fedcba9876543210fedcba9876543210";

// "breakout-win-test-child sleep 20000 TAG", started outside any job we made (suspended when `job`, then assigned).
struct Sleeper {
  UniqueHandle process;
  DWORD pid = 0;
  DWORD error = 0;  // GetLastError() of a failed CreateProcessW, for the failure message
  Sleeper(const std::string& tag, const win::JobObject* job = nullptr) {
    const std::wstring exe = (self_exe_dir() / "breakout-win-test-child.exe").wstring();
    std::wstring cmd = L"\"" + exe + L"\" sleep 20000 " + std::wstring(tag.begin(), tag.end());
    STARTUPINFOW si{};
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;  // no standard handles (Wine would hand ours down)
    PROCESS_INFORMATION pi{};
    if (!::CreateProcessW(exe.c_str(), cmd.data(), nullptr, nullptr, FALSE, job ? CREATE_SUSPENDED : 0, nullptr,
                          nullptr, &si, &pi)) {
      error = ::GetLastError();
      return;
    }
    process.reset(pi.hProcess);
    UniqueHandle thread(pi.hThread);
    pid = pi.dwProcessId;
    if (job) {
      job->assign(pi.hProcess);
      ::ResumeThread(pi.hThread);
    }
  }
  ~Sleeper() {
    if (process) ::TerminateProcess(process.get(), 1);  // host safety, also when a check failed
  }
  bool gone_within(DWORD ms) const { return ::WaitForSingleObject(process.get(), ms) == WAIT_OBJECT_0; }
};

bool listed(const std::vector<DWORD>& pids, DWORD pid) {
  for (DWORD p : pids)
    if (p == pid) return true;
  return false;
}

}  // namespace

TEST(WinNonceScan, FindsAndKillsAProcessOutsideTheJobByItsNonce) {
  const win::JobObject job = win::JobObject::create();
  Sleeper escapee(kNonce), stranger(kOther);
  // Wine 8.0's CreateProcessW fails now and then (error 1359, docs/windows.md): the error tells it apart.
  ASSERT_NE(escapee.pid, 0u) << "CreateProcessW failed: error " << escapee.error;
  ASSERT_NE(stranger.pid, 0u) << "CreateProcessW failed: error " << stranger.error;
  EXPECT_NE(win::command_line_of(escapee.process.get()).find(L"0123456789abcdef"), std::wstring::npos)
      << "the command line of another process could not be read";
  const auto seen = win::nonce_scan(kNonce, job.get(), /*kill_them=*/false);
  EXPECT_TRUE(listed(seen, escapee.pid));
  EXPECT_FALSE(listed(seen, stranger.pid)) << "a process without the nonce was listed";
  EXPECT_FALSE(escapee.gone_within(0)) << "listing must not kill";
  const auto killed = win::nonce_scan(kNonce, job.get(), /*kill_them=*/true);
  EXPECT_TRUE(listed(killed, escapee.pid));
  EXPECT_TRUE(escapee.gone_within(2000)) << "the escapee survived the kill";
  EXPECT_FALSE(stranger.gone_within(0)) << "a process without the nonce was killed";
  EXPECT_TRUE(win::nonce_scan("0123", job.get(), false).empty()) << "a short token matches strangers";
}

TEST(WinNonceScan, LeavesTheJobsOwnProcessesToTheJob) {
  const win::JobObject job = win::JobObject::create();
  Sleeper inside(kNonce, &job);
  ASSERT_NE(inside.pid, 0u) << "CreateProcessW failed: error " << inside.error;
  EXPECT_FALSE(listed(win::nonce_scan(kNonce, job.get(), false), inside.pid));
  EXPECT_EQ(job.active_processes(), 1);
}

// A concurrent attempt's probe sits in that attempt's job: even with this nonce it is neither
// listed nor killed, because it is not read at all (under Wine 8.0 reading it stops it, and a
// pipe-flood probe died of that: nonce_scan.cc).
TEST(WinNonceScan, LeavesProcessesInOtherJobsOfOursUnread) {
  const win::JobObject mine = win::JobObject::create(), other = win::JobObject::create();
  Sleeper elsewhere(kNonce, &other);
  ASSERT_NE(elsewhere.pid, 0u) << "CreateProcessW failed: error " << elsewhere.error;
  EXPECT_FALSE(listed(win::nonce_scan(kNonce, mine.get(), /*kill_them=*/true), elsewhere.pid))
      << "a process in another job of ours was read and listed";
  EXPECT_FALSE(elsewhere.gone_within(0)) << "a process in another job of ours was killed";
  EXPECT_EQ(other.active_processes(), 1);
}

TEST(WinNonceScan, ContainmentKillsEscapeesOutsideItsJob) {
  Containment box("nonce-scan-test", kNonce);
  Sleeper escapee(kNonce), stranger(kOther);
  ASSERT_NE(escapee.pid, 0u);
  EXPECT_EQ(box.live_count(), 1) << "the escapee outside the job is not counted";
  EXPECT_EQ(box.kill_all(), 1);
  EXPECT_TRUE(escapee.gone_within(2000)) << "kill_all left the escapee outside the job alive";
  EXPECT_FALSE(stranger.gone_within(0));
  EXPECT_EQ(box.live_count(), 0);
}
