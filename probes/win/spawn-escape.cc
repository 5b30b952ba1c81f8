// breakout-probe-spawn-escape (Windows): leaves a process behind that tries to outlive the sandbox.
//
//   breakout-probe-spawn-escape --technique background|breakaway --heartbeat FILE [--lifetime-ms 30000] [--wait-beats 3]
//
// The Windows twin of probes/spawn-escape.cc for the technique that exists on
// Windows: `background` starts a beater (this exe again, --beater) with
// CreateProcessW, no inherited handles and explicit empty standard handles
// (STARTF_USESTDHANDLES: without it a console child gets its parent's, and would
// hold the spawner's pipes), DETACHED_PROCESS; then the probe exits. The beater
// appends "beat <n> <pid>\n" to FILE every 25 ms until --lifetime-ms (100..600000)
// after the probe started, then stops by itself (the safety bound). `breakaway` is the
// same with CREATE_BREAKAWAY_FROM_JOB: the beater leaves the job the probe runs in, which
// the job allows only with JOB_OBJECT_LIMIT_BREAKAWAY_OK (Microsoft Learn, "Process
// Creation Flags", "JOBOBJECT_BASIC_LIMIT_INFORMATION"); refused, CreateProcessW fails
// with ERROR_ACCESS_DENIED and the report says breakaway_refused. The POSIX
// techniques (double-fork-setsid, ignore-signals, clear-pdeathsig, new-pgrp) have
// no Windows meaning: usage error (64).
// Microsoft Learn: "CreateProcessW", "STARTUPINFOW" (STARTF_USESTDHANDLES),
// "Process Creation Flags" (DETACHED_PROCESS).
//
// Result: ok=true when the beats were seen (the beater runs); fields technique,
// heartbeat, lifetime_ms, beats_seen, child_pid, waited_ms. Whether the beater
// outlived the sandbox is the harness's call: FILE still growing after the
// spawner returned.
// Exit: 0 ok, 1 failed attempt (CreateProcessW failed or no beats in 2 s), 64 usage error.
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

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-spawn-escape --technique background|breakaway --heartbeat FILE [--lifetime-ms 30000] "
    "[--wait-beats 3]\n";
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

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"technique", Args::kValue}, {"heartbeat", Args::kValue}, {"lifetime-ms", Args::kValue},
             {"wait-beats", Args::kValue}, {"beater", Args::kFlag}});
  const std::string heartbeat = args.require("heartbeat");
  const long long lifetime = args.get_int("lifetime-ms", 1, 600000, 30000);
  std::wstring file;
  try {
    file = wide(heartbeat);
  } catch (const std::exception& e) {
    args.usage_error(std::string("--heartbeat is not WTF-8: ") + e.what());
  }
  if (args.has("beater")) {  // internal: the process left behind
    const long long deadline = now_ms() + lifetime;
    for (unsigned long long n = 1; now_ms() < deadline; ++n) {
      beat_once(file, n);
      ::Sleep(kBeatIntervalMs);
    }
    return 0;
  }
  const std::string technique = args.require("technique");
  if (technique != "background" && technique != "breakaway")
    args.usage_error("--technique " + technique + " has no Windows counterpart");
  if (lifetime < 100) args.usage_error("--lifetime-ms must be in [100, 600000]");
  const long wait_beats = static_cast<long>(args.get_int("wait-beats", 1, 1000, 3));

  const long long start = now_ms();
  const long offset = count_lines(file);  // count only beats written from now on
  ProbeReport r("spawn-escape");
  r.set("technique", technique);
  r.set("heartbeat", heartbeat);
  r.set("lifetime_ms", lifetime);

  const std::wstring exe = self_path();
  const std::vector<std::string> child_argv = {breakout::wtf8_from_utf16(std::u16string(exe.begin(), exe.end())),
                                               "--beater", "--heartbeat", heartbeat, "--lifetime-ms",
                                               std::to_string(lifetime)};
  std::wstring cmdline = wide(breakout::build_windows_command_line(child_argv));
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
    r.emit();
    return r.exit_code();
  }
  breakout::UniqueHandle process(pi.hProcess), thread(pi.hThread);
  r.set("child_pid", static_cast<long long>(pi.dwProcessId));

  long beats = 0;
  const long long wait_until = now_ms() + 2000;
  while ((beats = count_lines(file) - offset) < wait_beats && now_ms() < wait_until) ::Sleep(10);
  r.set("beats_seen", beats);
  r.set("waited_ms", now_ms() - start);
  if (beats >= wait_beats) {
    r.succeed();
  } else {
    r.fail("heartbeat", ETIMEDOUT);
    r.set_detail("only " + std::to_string(beats) + " beats in 2 s");
  }
  r.emit();
  return r.exit_code();
}
