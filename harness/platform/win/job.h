// A Windows job object as the containment box: every process of a run, and whatever it starts, stays countable and killable.
//
// Microsoft Learn, "Job Objects": a process assigned to a job takes every child
// it creates into the job (unless breakaway is allowed, which we never allow);
// since Windows 8 a process already in a job (a CI runner's, or a spawner's own)
// can be assigned to another one, which then nests. JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
// kills what is left when the last handle closes, so nothing outlives the harness.
//   JobObject job = JobObject::create();           // throws Error("win32", "...")
//   job.assign(process);  job.active_processes();  job.terminate_all(2s);
#pragma once

#include <windows.h>

#include <chrono>

#include "harness/platform/win/unique_handle.h"

namespace breakout::win {

// The exit code TerminateJobObject gives every process we kill (run_process
// reports such a child as killed, term_signal 9, like SIGKILL on POSIX).
inline constexpr UINT kKilledExitCode = 0xB0C0DEAD;

class JobObject {
 public:
  // Unnamed, KILL_ON_JOB_CLOSE, breakaway not allowed; listed among the harness's live jobs
  // (in_a_harness_job) until destroyed.
  static JobObject create();
  ~JobObject();  // leaves the list before its handle closes
  JobObject(JobObject&&) noexcept = default;
  JobObject& operator=(JobObject&&) = delete;
  HANDLE get() const { return h_.get(); }
  void assign(HANDLE process) const;  // throws Error("win32", "AssignProcessToJobObject ...")
  // JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.ActiveProcesses; throws on failure.
  int active_processes() const;
  // TerminateJobObject, then waits (bounded) until no process is left; returns
  // how many were alive before. Never throws.
  int terminate_all(std::chrono::milliseconds wait) const noexcept;

 private:
  explicit JobObject(HANDLE h) : h_(h) {}
  UniqueHandle h_;
};

// Whether `process` is in a job this harness made and still holds (a box's, a run's own, a
// driver's own): such a process is that job's to count and kill. nonce_scan asks this before it
// reads a process's memory (nonce_scan.cc: under Wine 8.0 the read stops the process). Never throws.
bool in_a_harness_job(HANDLE process) noexcept;

}  // namespace breakout::win
