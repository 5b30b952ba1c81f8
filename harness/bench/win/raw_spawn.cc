// The raw spawn floor on Windows: CreateProcessW + WaitForSingleObject, stdio on NUL (no job, no pipes, no harness).
//
// The same program, command line, environment block and cwd as launch_in_job would hand
// CreateProcessW for the `none` spawner's plan (platform/win/launch.h resolves the program and
// encodes the block), so spawn/none minus spawn/raw is what the harness adds: the job, the
// suspended start and resume, the attribute list, the overlapped pipes and their drain.
// No PROC_THREAD_ATTRIBUTE_HANDLE_LIST here: the benchmark spawns one process at a time, so the
// only inheritable handles are the two NUL handles below.
#include <windows.h>

#include "harness/bench/spawn_probe.h"
#include "harness/core/env_block.h"
#include "harness/core/error.h"
#include "harness/core/win_cmdline.h"
#include "harness/platform/win/launch.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

namespace breakout::bench {

namespace {

// The NUL device, inheritable: the child's standard handle (Microsoft Learn, "CreateFileW": "NUL").
UniqueHandle open_nul(DWORD access) {
  SECURITY_ATTRIBUTES sa{sizeof sa, nullptr, TRUE};
  UniqueHandle h(::CreateFileW(L"NUL", access, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, nullptr));
  if (!h) win::throw_last_error("raw spawn: CreateFileW(NUL)");
  return h;
}

}  // namespace

SpawnSample RawTarget::spawn_once() {
  const std::wstring program = win::resolve_program(argv_[0], env_);
  std::wstring cmdline = win::wide(build_windows_command_line(argv_));  // CreateProcessW may write to it
  const std::u16string env = env_block::encode_windows(win::split_env(env_));
  const std::wstring cwd = cwd_.empty() ? std::wstring() : win::wide(cwd_);

  const auto t0 = std::chrono::steady_clock::now();
  const UniqueHandle in = open_nul(GENERIC_READ), out = open_nul(GENERIC_WRITE);
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = in.get();
  si.hStdOutput = out.get();
  si.hStdError = out.get();
  PROCESS_INFORMATION pi{};
  if (!::CreateProcessW(program.c_str(), cmdline.data(), nullptr, nullptr, TRUE, CREATE_UNICODE_ENVIRONMENT,
                        const_cast<char16_t*>(env.data()), cwd.empty() ? nullptr : cwd.c_str(), &si, &pi))
    win::throw_last_error("raw spawn: CreateProcessW " + argv_[0]);
  const UniqueHandle process(pi.hProcess), thread(pi.hThread);
  if (::WaitForSingleObject(process.get(), INFINITE) != WAIT_OBJECT_0)
    win::throw_last_error("raw spawn: WaitForSingleObject");
  SpawnSample s;
  s.wall = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
  DWORD code = 0;
  if (!::GetExitCodeProcess(process.get(), &code)) win::throw_last_error("raw spawn: GetExitCodeProcess");
  check(code == 0, "raw spawn of " + argv_[0] + ": the probe did not exit 0 (exit code " + std::to_string(code) + ")");
  return s;
}

}  // namespace breakout::bench
