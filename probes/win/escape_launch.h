// How the Windows spawn-escape probe hands its beater to a process outside its job: one file per technique.
//
//   EscapeLaunch l = launch_via_wmi(command_line);   // escape_wmi.cc
//   if (!l.started) report l.step, l.hresult, l.unavailable
//
// Each technique asks another process (the WMI provider host, the Task Scheduler service,
// explorer) to start the beater, so on Windows the beater is that process's child, not the
// probe's, and is outside the probe's job (Microsoft Learn, "Job Objects": only the job's
// processes' own children are added to it). Whether the beater outlived the sandbox is the
// harness's call (the heartbeat); these only say whether the request was accepted.
// Windows only (mingw-w64).
#pragma once

#include <windows.h>

#include <string>

#include "probes/win/com_util.h"
#include "probes/win/path_form.h"  // wine_version()

namespace breakout::probe {

struct EscapeLaunch {
  bool started = false;     // the mechanism accepted the request (the beats say whether it ran)
  unsigned long pid = 0;    // the beater's pid where the mechanism says it (WMI), else 0
  std::string step;         // the call that failed
  HRESULT hresult = S_OK;   // its result
  bool unavailable = false; // the mechanism is absent here (mechanism_absent, or any failure under Wine)
  std::string detail;       // bounded text for the report
};

// A technique's failing call: under Wine any failure, elsewhere only an absent mechanism
// (mechanism_absent: class not registered, service not running), counts as unavailable.
inline EscapeLaunch escape_failed(const std::string& step, HRESULT hr) {
  EscapeLaunch l;
  l.step = step;
  l.hresult = hr;
  l.unavailable = mechanism_absent(hr) || !wine_version().empty();
  l.detail = step + " failed: " + hresult_text(hr);
  return l;
}

// IWbemServices::ExecMethod("Win32_Process", "Create", CommandLine) in ROOT\CIMV2.
EscapeLaunch launch_via_wmi(const std::wstring& command_line);
// Task Scheduler 2.0: a task `task_name` in the root folder with one exec action and no trigger,
// registered for the interactive user and run at once (IRegisteredTask::Run). The task stays
// registered when it started (see delete_task), and is deleted here when it did not.
EscapeLaunch launch_via_task(const std::wstring& exe, const std::wstring& args, const std::wstring& task_name);
// IShellDispatch2::ShellExecute of the desktop's shell view: explorer starts the beater.
EscapeLaunch launch_via_explorer(const std::wstring& exe, const std::wstring& args);
// Deletes `task_name` from the Task Scheduler root folder; S_OK or the failing HRESULT.
HRESULT delete_task(const std::wstring& task_name);

}  // namespace breakout::probe
