// breakout-probe-spawn-escape (Windows): leaves a process behind that tries to outlive the sandbox.
//
//   breakout-probe-spawn-escape --technique background|breakaway|wmi|schtasks|shellexecute --heartbeat FILE
//       [--lifetime-ms 30000] [--wait-beats 3] [--nonce N] [--task-name NAME]
//
// The Windows twin of probes/spawn-escape.cc. Every technique starts a beater (this exe
// again, --beater) that appends "beat <n> <pid>\n" to FILE every 25 ms until --lifetime-ms
// (100..600000) after it started, then stops by itself (the safety bound); the beater first
// closes any standard handles it was given, so it never holds the spawner's pipes. How it is
// started is the technique:
//  * background: CreateProcessW, no inherited handles, explicit empty standard handles
//    (STARTF_USESTDHANDLES: without it a console child gets its parent's), DETACHED_PROCESS;
//    the beater stays in the probe's job.
//  * breakaway: the same with CREATE_BREAKAWAY_FROM_JOB: the beater leaves the job, which the job
//    allows only with JOB_OBJECT_LIMIT_BREAKAWAY_OK (Microsoft Learn, "Process Creation Flags",
//    "JOBOBJECT_BASIC_LIMIT_INFORMATION"); refused, CreateProcessW fails with ERROR_ACCESS_DENIED
//    and the report says breakaway_refused.
//  * wmi, schtasks, shellexecute: another process starts the beater (escape_launch.h: the WMI
//    provider host, the Task Scheduler, explorer), outside the probe's job on Windows.
//    schtasks names the task --task-name (the harness passes breakout-<tag> and deletes it after
//    judging); the probe deletes it when the beater did not start, the beater when its lifetime
//    ends (deleting it at once could stop a running instance and hide the escape).
// --nonce is handed on to the beater's command line, so the harness finds and kills a beater
// that left its job (the nonce scan, platform/win/nonce_scan.cc). The POSIX techniques
// (double-fork-setsid, ignore-signals, clear-pdeathsig, new-pgrp) have no Windows meaning:
// usage error (64). Microsoft Learn: "CreateProcessW", "STARTUPINFOW", "Process Creation Flags".
//
// Result: ok=true when the beats were seen (the beater runs); fields technique, heartbeat,
// lifetime_ms, beats_seen, child_pid (the probe's own child, or the pid WMI reports),
// waited_ms; for wmi/schtasks/shellexecute technique_state "started", "unavailable" (the
// mechanism is absent here: a class, service or desktop shell missing, or any failure under
// Wine) or "failed", with technique_step, hresult and technique_reason. Whether the beater
// outlived the sandbox is the harness's call: FILE still growing after the spawner returned;
// "unavailable" becomes a skip there only when no beat was ever written (observe.cc).
// Exit: 0 ok, 1 failed attempt (the start failed or no beats in time), 64 usage error.
//
// Windows only (mingw-w64).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/core/win_cmdline.h"
#include "probes/common/args.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"
#include "probes/win/com_util.h"
#include "probes/win/escape_launch.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-spawn-escape --technique background|breakaway|wmi|schtasks|shellexecute --heartbeat FILE "
    "[--lifetime-ms 30000] [--wait-beats 3] [--nonce N] [--task-name NAME]\n";
constexpr long long kBeatIntervalMs = 25;

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Appends one beat; reopens FILE each time so the harness may rotate or delete it.
void beat_once(const std::wstring& file, unsigned long long n) {
  breakout::UniqueHandle h(::CreateFileW(file.c_str(), FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE |
                                         FILE_SHARE_DELETE, nullptr, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!h) return;  // keep beating: a beater that gives up would hide an escape
  const std::string line = "beat " + std::to_string(n) + " " + std::to_string(::GetCurrentProcessId()) + "\n";
  DWORD done = 0;
  ::WriteFile(h.get(), line.data(), static_cast<DWORD>(line.size()), &done, nullptr);
}

// Lines in FILE (0 when it cannot be read).
long count_lines(const std::wstring& file) {
  breakout::UniqueHandle h(::CreateFileW(file.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE |
                                         FILE_SHARE_DELETE, nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!h) return 0;
  long lines = 0;
  char buf[8192];
  DWORD n = 0;
  while (::ReadFile(h.get(), buf, sizeof buf, &n, nullptr) && n > 0)
    for (DWORD i = 0; i < n; ++i) lines += buf[i] == '\n';
  return lines;
}

std::wstring self_path() {
  std::wstring buf(32768, L'\0');
  const DWORD n = ::GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
  buf.resize(n);
  return buf;
}

// The beater's standard handles: whatever it was given (Wine's wbemprox starts it without
// STARTF_USESTDHANDLES, so it would get the probe's, the spawner's pipes) is closed, so no
// pipe of the spawner stays open for its lifetime.
void drop_standard_handles() {
  for (DWORD which : {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE}) {
    const HANDLE h = ::GetStdHandle(which);
    if (h != nullptr && h != INVALID_HANDLE_VALUE) ::CloseHandle(h);
    ::SetStdHandle(which, nullptr);
  }
}

int run_beater(const std::wstring& file, long long lifetime, const std::string& task_name) {
  drop_standard_handles();
  const long long deadline = now_ms() + lifetime;
  for (unsigned long long n = 1; now_ms() < deadline; ++n) {
    beat_once(file, n);
    ::Sleep(kBeatIntervalMs);
  }
  if (!task_name.empty()) delete_task(wide(task_name));  // schtasks: the task that started us
  return 0;
}

// Starts the beater by `technique`; false (and the report filled) when it did not start.
bool start_beater(ProbeReport& r, const std::string& technique, const std::wstring& exe,
                  const std::vector<std::string>& beater_args, const std::string& task_name) {
  std::vector<std::string> argv = {breakout::wtf8_from_utf16(std::u16string(exe.begin(), exe.end()))};
  argv.insert(argv.end(), beater_args.begin(), beater_args.end());
  std::wstring cmdline = wide(breakout::build_windows_command_line(argv));
  if (technique == "background" || technique == "breakaway") {
    STARTUPINFOW si{};
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;  // null standard handles: the beater holds none of the spawner's pipes
    PROCESS_INFORMATION pi{};
    const DWORD flags = DETACHED_PROCESS | CREATE_UNICODE_ENVIRONMENT |
                        (technique == "breakaway" ? CREATE_BREAKAWAY_FROM_JOB : 0);
    if (!::CreateProcessW(exe.c_str(), cmdline.data(), nullptr, nullptr, FALSE, flags, nullptr, nullptr, &si, &pi)) {
      const DWORD e = ::GetLastError();
      fail_win32(r, "CreateProcessW", e);
      r.set("breakaway_refused", technique == "breakaway" && e == ERROR_ACCESS_DENIED);
      return false;
    }
    breakout::UniqueHandle process(pi.hProcess), thread(pi.hThread);
    r.set("child_pid", static_cast<long long>(pi.dwProcessId));
    return true;
  }
  // The indirect techniques: the program and its arguments apart for schtasks and explorer.
  std::string args_only;
  for (const std::string& a : beater_args) args_only += (args_only.empty() ? "" : " ") + breakout::quote_windows_arg(a);
  EscapeLaunch l = technique == "wmi"        ? launch_via_wmi(cmdline)
                   : technique == "schtasks" ? launch_via_task(exe, wide(args_only), wide(task_name))
                                             : launch_via_explorer(exe, wide(args_only));
  r.set("technique_state", l.started ? "started" : l.unavailable ? "unavailable" : "failed");
  r.set("technique_reason", l.detail);
  if (l.pid != 0) r.set("child_pid", static_cast<long long>(l.pid));
  if (l.started) return true;
  r.fail(l.step, l.unavailable ? ENOSYS : EACCES);
  r.set("technique_step", l.step);
  r.set("hresult", hresult_text(l.hresult));
  return false;
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"technique", Args::kValue}, {"heartbeat", Args::kValue}, {"lifetime-ms", Args::kValue},
             {"wait-beats", Args::kValue}, {"beater", Args::kFlag}, {"nonce", Args::kValue},
             {"task-name", Args::kValue}});
  const std::string heartbeat = args.require("heartbeat");
  const long long lifetime = args.get_int("lifetime-ms", 1, 600000, 30000);
  const std::string task_name = args.has("task-name") ? args.require("task-name") : std::string();
  std::wstring file;
  try {
    file = wide(heartbeat);
    (void)wide(task_name);
  } catch (const std::exception& e) {
    args.usage_error(std::string("--heartbeat or --task-name is not WTF-8: ") + e.what());
  }
  if (args.has("beater")) return run_beater(file, lifetime, task_name);  // internal: the process left behind
  const std::string technique = args.require("technique");
  const bool indirect = technique == "wmi" || technique == "schtasks" || technique == "shellexecute";
  if (technique != "background" && technique != "breakaway" && !indirect)
    args.usage_error("--technique " + technique + " has no Windows counterpart");
  if (technique == "schtasks" && (task_name.empty() || task_name.find_first_of("\\/") != std::string::npos))
    args.usage_error("--technique schtasks needs --task-name NAME (a name in the root folder)");
  if (lifetime < 100) args.usage_error("--lifetime-ms must be in [100, 600000]");
  const long wait_beats = static_cast<long>(args.get_int("wait-beats", 1, 1000, 3));

  const long long start = now_ms();
  const long offset = count_lines(file);  // count only beats written from now on
  ProbeReport r("spawn-escape");
  r.set("technique", technique);
  r.set("heartbeat", heartbeat);
  r.set("lifetime_ms", lifetime);

  std::vector<std::string> beater_args = {"--beater", "--heartbeat", heartbeat, "--lifetime-ms", std::to_string(lifetime)};
  if (args.has("nonce")) beater_args.insert(beater_args.end(), {"--nonce", args.require("nonce")});
  if (technique == "schtasks") beater_args.insert(beater_args.end(), {"--task-name", task_name});
  if (!start_beater(r, technique, self_path(), beater_args, task_name)) {
    r.emit();
    return r.exit_code();
  }

  // Another process starting the beater (a service, explorer) may take longer than our own CreateProcessW.
  const long long wait_ms = indirect ? 5000 : 2000;
  long beats = 0;
  const long long wait_until = now_ms() + wait_ms;
  while ((beats = count_lines(file) - offset) < wait_beats && now_ms() < wait_until) ::Sleep(10);
  r.set("beats_seen", beats);
  r.set("waited_ms", now_ms() - start);
  if (beats >= wait_beats) {
    r.succeed();
  } else {
    r.fail("heartbeat", ETIMEDOUT);
    r.set_detail("only " + std::to_string(beats) + " beats in " + std::to_string(wait_ms / 1000) + " s");
    if (technique == "schtasks") delete_task(wide(task_name));  // it never beat, so it never deletes its task
  }
  r.emit();
  return r.exit_code();
}

