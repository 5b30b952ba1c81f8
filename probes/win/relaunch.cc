// net-connect --launch: the grandchild started by CreateProcessW, ShellExecuteExW, cmd.exe's start or WMI (relaunch.h).
#include "probes/win/relaunch.h"

#include <shellapi.h>

#include <chrono>

#include "harness/core/win_cmdline.h"
#include "harness/core/wtf8.h"
#include "harness/platform/win/unique_handle.h"
#include "probes/win/com_util.h"
#include "probes/win/escape_launch.h"

namespace breakout::probe {

namespace {

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string utf8(const std::wstring& w) { return wtf8_from_utf16(std::u16string(w.begin(), w.end())); }

std::wstring wide_of(const std::string& s) {
  const std::u16string u = utf16_from_wtf8(s);
  return std::wstring(u.begin(), u.end());
}

Relaunch failed(const std::string& step, DWORD e) {
  Relaunch g;
  g.step = step;
  g.detail = step + " failed: " + hresult_text(HRESULT_FROM_WIN32(e));
  return g;
}

std::wstring system_dir() {
  wchar_t buf[MAX_PATH + 1] = {};
  const UINT n = ::GetSystemDirectoryW(buf, MAX_PATH);
  return n > 0 && n < MAX_PATH ? std::wstring(buf, n) : std::wstring(L"C:\\Windows\\System32");
}

// cmd.exe expands %VAR% even inside quotes and treats these as operators outside them
// (Microsoft Learn, "cmd"): an argument holding one would not reach the grandchild as written.
bool cmd_safe(const std::string& arg) { return arg.find_first_of("%!^&|<>\"") == std::string::npos; }

// A plain child with empty standard handles (STARTF_USESTDHANDLES: without it a console child
// gets ours, the spawner's pipes) and no inherited handles.
bool create_plain(Relaunch& g, const std::wstring& program, std::wstring cmdline, PROCESS_INFORMATION* pi) {
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  if (::CreateProcessW(program.c_str(), cmdline.data(), nullptr, nullptr, FALSE,
                       CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW, nullptr, nullptr, &si, pi))
    return true;
  g = failed("CreateProcessW", ::GetLastError());
  return false;
}

// Waits for `process` (may be null: then only for the report) or the report, at most until
// `start + wait_ms`; terminates `process` at the bound when `kill_at_bound`.
void wait_for(Relaunch& g, HANDLE process, const std::function<bool()>& reported, DWORD wait_ms, bool kill_at_bound,
              long long start) {
  const long long end = start + wait_ms;
  for (;;) {
    if (process != nullptr && ::WaitForSingleObject(process, 10) == WAIT_OBJECT_0) {
      g.finished = true;
      break;
    }
    if (process == nullptr) ::Sleep(10);
    if (reported()) {  // the report is the grandchild's last act: give it a moment to exit
      g.finished = true;
      if (process != nullptr) ::WaitForSingleObject(process, 1000);
      break;
    }
    if (now_ms() >= end) break;
  }
  DWORD code = STILL_ACTIVE;
  if (process != nullptr && ::GetExitCodeProcess(process, &code) && code != STILL_ACTIVE) {
    g.have_exit_code = true;
    g.exit_code = code;
  } else if (process != nullptr && !g.finished && kill_at_bound) {
    g.killed = ::TerminateProcess(process, 1) != FALSE;
  }
  g.waited_ms = now_ms() - start;
}

}  // namespace

bool is_launch_path(const std::string& how) {
  return how == "create-process" || how == "shellexecute" || how == "cmd-start" || how == "wmi";
}

Relaunch relaunch_self(const std::string& how, const std::wstring& exe, const std::vector<std::string>& args,
                       const std::function<bool()>& reported, DWORD wait_ms) {
  const long long start = now_ms();
  std::vector<std::string> argv = {utf8(exe)};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string params;  // the arguments alone, for ShellExecuteExW and start
  for (const std::string& a : args) params += (params.empty() ? "" : " ") + quote_windows_arg(a);

  Relaunch g;
  UniqueHandle process;
  bool kill_at_bound = true;
  if (how == "create-process") {
    PROCESS_INFORMATION pi{};
    if (!create_plain(g, exe, wide_of(build_windows_command_line(argv)), &pi)) return g;
    process.reset(pi.hProcess);
    UniqueHandle thread(pi.hThread);
    g.pid = pi.dwProcessId;
  } else if (how == "shellexecute") {
    ComApartment com;  // Microsoft Learn, "ShellExecuteExW": initialise COM first, a handler may need it
    const std::wstring file = exe, parameters = wide_of(params);
    SHELLEXECUTEINFOW sei{};
    sei.cbSize = sizeof sei;
    sei.fMask = SEE_MASK_NOCLOSEPROCESS | SEE_MASK_NOASYNC | SEE_MASK_FLAG_NO_UI;
    sei.lpVerb = L"open";
    sei.lpFile = file.c_str();
    sei.lpParameters = parameters.c_str();
    sei.nShow = SW_HIDE;
    if (!::ShellExecuteExW(&sei)) return failed("ShellExecuteExW", ::GetLastError());
    if (sei.hProcess == nullptr) return failed("ShellExecuteExW (no process handle)", ERROR_INVALID_HANDLE);
    process.reset(sei.hProcess);
    g.pid = ::GetProcessId(sei.hProcess);
  } else if (how == "cmd-start") {
    for (const std::string& a : argv)
      if (!cmd_safe(a)) {
        g.step = "cmd-start";
        g.detail = "an argument holds a cmd.exe metacharacter (%!^&|<>\"): " + a.substr(0, 200);
        return g;
      }
    // /d: no AutoRun commands; start "" (the title) /b (no new console window) /wait.
    const std::wstring cmd = system_dir() + L"\\cmd.exe";
    const std::string line =
        quote_windows_program(utf8(cmd)) + " /d /c start \"\" /b /wait " + quote_windows_arg(argv[0]) + " " + params;
    PROCESS_INFORMATION pi{};
    if (!create_plain(g, cmd, wide_of(line), &pi)) return g;
    process.reset(pi.hProcess);
    UniqueHandle thread(pi.hThread);
    g.pid = pi.dwProcessId;  // cmd.exe's: the grandchild is start's child, in the job
  } else if (how == "wmi") {
    const EscapeLaunch l = launch_via_wmi(wide_of(build_windows_command_line(argv)));
    if (!l.started) {
      g.state = l.unavailable ? "unavailable" : "failed";
      g.step = l.step;
      g.detail = l.detail;
      return g;
    }
    g.pid = l.pid;
    // Not ours to kill: WmiPrvSE.exe's child on Windows (the nonce scan's); only waited for.
    if (l.pid != 0) process.reset(::OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, l.pid));
    kill_at_bound = false;
  } else {
    g.step = "launch";
    g.detail = "unknown launch path " + how;
    return g;
  }
  g.state = "started";
  g.detail = how + " started pid " + std::to_string(g.pid);
  wait_for(g, process.get(), reported, wait_ms, kill_at_bound, start);
  return g;
}

}  // namespace breakout::probe
