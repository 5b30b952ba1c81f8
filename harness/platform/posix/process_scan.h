// The /proc nonce scan: a box's processes found by the per-attempt token in their cmdline or environ.
//
// The fallback when no cgroup v2 is writable, and the second net for whatever left the box's
// cgroup (a root probe can write another cgroup.procs). Only processes started after the box
// are read (/proc/<pid>/stat field 22 against boot_ticks_now() at the box's birth); those found
// older are remembered with a pidfd across scans (process_scan.cc).
//   const unsigned long long since = process_scan::boot_ticks_now();    // when the box is made
//   std::vector<int> pids = process_scan::nonce_scan(nonce, /*kill_them=*/true, since);
#pragma once

#include <string>
#include <vector>

namespace breakout::process_scan {

// Clock ticks since boot, in the unit of /proc/<pid>/stat field 22; 0 when the clock is
// unreadable (then a scan with since = 0 skips nothing).
unsigned long long boot_ticks_now();

// Pids (other than ours) whose cmdline or environ contains `nonce`, among the processes that
// started at or after `since` (0: all). With `kill_them`, each is SIGKILLed through a pidfd
// opened before its files were read, so a recycled pid is never signalled. Empty for a nonce
// shorter than 8 characters (it would match strangers).
std::vector<int> nonce_scan(const std::string& nonce, bool kill_them, unsigned long long since);

}  // namespace breakout::process_scan
