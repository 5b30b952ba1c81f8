// The Windows nonce scan: processes outside the box's job whose command line carries the attempt's nonce.
//
//   for (DWORD pid : nonce_scan(nonce, job, /*kill_them=*/true)) ...
//
// The job is the box (job.h), but a process another process started for the probe (the WMI
// provider host, the Task Scheduler, explorer: spawn-escape's indirect techniques) is not in
// it. Such escapees are found the way platform/posix/process_scan.cc's nonce scan finds processes
// that left the cgroup: by the nonce in their command line (the attempt hands it to the
// beater, `--nonce {nonce}`). Windows only (mingw-w64).
#pragma once

#include <windows.h>

#include <string>
#include <vector>

namespace breakout::win {

// Pids (other than ours) not in `job` whose command line contains `nonce` (at least 8
// characters, or nothing is matched). With `kill_them`, each is terminated through the
// handle its command line was read with, so a reused pid is never terminated. Processes in
// any other live job of the harness (job.h, in_a_harness_job) are skipped unread: each is its
// own job's to count and kill, and a process joins one of our jobs only by being started in it.
std::vector<DWORD> nonce_scan(const std::string& nonce, HANDLE job, bool kill_them) noexcept;

// The command line of `process` (opened with PROCESS_QUERY_INFORMATION | PROCESS_VM_READ),
// at most 32767 UTF-16 units; empty when it cannot be read.
std::wstring command_line_of(HANDLE process) noexcept;

}  // namespace breakout::win
