// The launch paths by which the Windows net-connect probe starts a copy of itself (--launch).
//
//   Relaunch g = relaunch_self("shellexecute", exe, {"--target", t, "--nonce", n, "--report-to", f},
//                              [&] { return report_complete(f); }, 8000);
//   if (g.state != "started") report g.step, g.detail (g.state "unavailable" or "failed")
//
// A firewall or WFP rule tied to one program path or one process tree misses a
// process another launcher starts (reported against Codex's Windows sandbox: a .NET
// Process.Start child reached the network its sandboxed parent could not). The paths:
//   create-process  CreateProcessW: a plain child, in the probe's job
//   shellexecute    ShellExecuteExW with SEE_MASK_NOCLOSEPROCESS: what .NET Process.Start does
//                   with UseShellExecute = true (Microsoft Learn, "ProcessStartInfo.UseShellExecute")
//   cmd-start       cmd.exe /d /c start "" /wait PROGRAM ARGS (Microsoft Learn, "start")
//   wmi             Win32_Process.Create (escape_wmi.cc): on Windows the WMI provider host starts
//                   it, outside the probe's job; Wine's wbemprox runs it in the caller's process
// The grandchild is waited for, at most `wait_ms`; on the bound it is terminated where it is the
// probe's own child (create-process, shellexecute; for cmd-start cmd.exe, whose child stays in
// the job); a WMI grandchild is left to its own watchdog and to the harness's nonce scan (its
// command line carries the nonce). Whether its connect arrived is the harness's listener's call.
// Windows only (mingw-w64).
#pragma once

#include <windows.h>

#include <functional>
#include <string>
#include <vector>

namespace breakout::probe {

struct Relaunch {
  std::string state = "failed";  // "started" | "unavailable" (the path is absent here) | "failed"
  std::string step;              // the failing call
  std::string detail;            // bounded text for the report
  unsigned long pid = 0;         // the grandchild's pid where known (cmd-start: cmd.exe's)
  bool finished = false;         // it ended (or reported) within the bound
  bool killed = false;           // terminated at the bound (its own child only)
  bool have_exit_code = false;
  unsigned long exit_code = 0;
  long long waited_ms = 0;
};

// The names --launch takes besides "direct".
bool is_launch_path(const std::string& how);

// Starts `exe` with `args` (WTF-8) through `how` and waits until it exits or `reported()` says its
// report is complete, at most `wait_ms`.
Relaunch relaunch_self(const std::string& how, const std::wstring& exe, const std::vector<std::string>& args,
                       const std::function<bool()>& reported, DWORD wait_ms);

}  // namespace breakout::probe
