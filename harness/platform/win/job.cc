// Job objects (see job.h): creation with kill-on-close, assignment, the live count, killing the tree.
#include "harness/platform/win/job.h"

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "harness/platform/win/win_util.h"

namespace breakout::win {

namespace {

// The handle of every live JobObject. A handle leaves the list (under the lock) before it is
// closed, so in_a_harness_job never asks about a closed or reused handle. Never destroyed: a
// JobObject may outlive static destruction order.
struct LiveJobs {
  std::mutex mu;
  std::vector<HANDLE> handles;
};
LiveJobs& live_jobs() {
  static auto* jobs = new LiveJobs;
  return *jobs;
}

}  // namespace

JobObject JobObject::create() {
  UniqueHandle h(::CreateJobObjectW(nullptr, nullptr));
  if (!h) throw_last_error("CreateJobObjectW");
  // Microsoft Learn, "JOBOBJECT_BASIC_LIMIT_INFORMATION": KILL_ON_JOB_CLOSE
  // "causes all processes associated with the job to terminate when the last
  // handle to the job is closed"; without BREAKAWAY_OK, CREATE_BREAKAWAY_FROM_JOB fails.
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  if (!::SetInformationJobObject(h.get(), JobObjectExtendedLimitInformation, &limits, sizeof limits))
    throw_last_error("SetInformationJobObject(KILL_ON_JOB_CLOSE)");
  JobObject job(h.release());
  {
    std::lock_guard<std::mutex> lock(live_jobs().mu);
    live_jobs().handles.push_back(job.get());
  }
  return job;
}

JobObject::~JobObject() {
  if (!h_) return;  // moved from
  std::lock_guard<std::mutex> lock(live_jobs().mu);
  auto& v = live_jobs().handles;
  v.erase(std::remove(v.begin(), v.end(), h_.get()), v.end());
}

bool in_a_harness_job(HANDLE process) noexcept {
  std::lock_guard<std::mutex> lock(live_jobs().mu);
  for (HANDLE job : live_jobs().handles) {
    BOOL in = FALSE;
    if (::IsProcessInJob(process, job, &in) && in) return true;
  }
  return false;
}

void JobObject::assign(HANDLE process) const {
  if (!::AssignProcessToJobObject(h_.get(), process)) throw_last_error("AssignProcessToJobObject");
}

int JobObject::active_processes() const {
  JOBOBJECT_BASIC_ACCOUNTING_INFORMATION info{};
  if (!::QueryInformationJobObject(h_.get(), JobObjectBasicAccountingInformation, &info, sizeof info, nullptr))
    throw_last_error("QueryInformationJobObject(BasicAccounting)");
  return static_cast<int>(info.ActiveProcesses);
}

int JobObject::terminate_all(std::chrono::milliseconds wait) const noexcept {
  int before = 0;
  try {
    before = active_processes();
    if (before == 0) return 0;
    ::TerminateJobObject(h_.get(), kKilledExitCode);
    // ActiveProcesses drops once each terminated process is gone ("Job Objects");
    // bounded: a process stuck in the kernel must not hang the harness.
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (active_processes() > 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  } catch (...) {
  }
  return before;
}

}  // namespace breakout::win
