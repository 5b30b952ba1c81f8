// The Windows nonce scan (nonce_scan.h): Toolhelp32 process list, NtQueryInformationProcess command lines.
#include "harness/platform/win/nonce_scan.h"

#include <tlhelp32.h>
#include <winternl.h>

#include "harness/platform/win/job.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

namespace breakout::win {

namespace {

// ProcessCommandLineInformation (60): a UNICODE_STRING followed by its buffer, Windows 8.1+
// (Microsoft Learn, "NtQueryInformationProcess"); needs PROCESS_QUERY_LIMITED_INFORMATION only.
constexpr PROCESSINFOCLASS kProcessCommandLineInformation = static_cast<PROCESSINFOCLASS>(60);

using NtQueryInformationProcessFn = LONG(NTAPI*)(HANDLE, PROCESSINFOCLASS, PVOID, ULONG, PULONG);

NtQueryInformationProcessFn query_fn() {
  static const auto fn = reinterpret_cast<NtQueryInformationProcessFn>(reinterpret_cast<void*>(
      ::GetProcAddress(::GetModuleHandleW(L"ntdll.dll"), "NtQueryInformationProcess")));
  return fn;
}

// The older way, for systems without class 60 (Wine 8.0 among them, seen in ci/wine-run.sh):
// the command line from the process's PEB (ProcessBasicInformation -> PEB.ProcessParameters ->
// RTL_USER_PROCESS_PARAMETERS.CommandLine), read with ReadProcessMemory; needs PROCESS_VM_READ.
std::wstring command_line_from_peb(HANDLE process, NtQueryInformationProcessFn query) {
  PROCESS_BASIC_INFORMATION basic{};
  ULONG got = 0;
  if (query(process, ProcessBasicInformation, &basic, sizeof basic, &got) < 0 || basic.PebBaseAddress == nullptr)
    return {};
  PEB peb{};
  RTL_USER_PROCESS_PARAMETERS params{};
  SIZE_T n = 0;
  if (!::ReadProcessMemory(process, basic.PebBaseAddress, &peb, sizeof peb, &n) || peb.ProcessParameters == nullptr ||
      !::ReadProcessMemory(process, peb.ProcessParameters, &params, sizeof params, &n))
    return {};
  const USHORT bytes = params.CommandLine.Length;  // a USHORT: at most 64 KiB (bounded)
  if (params.CommandLine.Buffer == nullptr || bytes == 0) return {};
  std::wstring out(bytes / sizeof(wchar_t), L'\0');
  if (!::ReadProcessMemory(process, params.CommandLine.Buffer, out.data(), out.size() * sizeof(wchar_t), &n)) return {};
  out.resize(n / sizeof(wchar_t));
  return out;
}

}  // namespace

std::wstring command_line_of(HANDLE process) noexcept {
  try {
    const auto query = query_fn();
    if (query == nullptr) return {};
    // UNICODE_STRING.MaximumLength is a USHORT: the header plus 64 KiB always suffices (bounded).
    std::vector<unsigned char> buf(sizeof(UNICODE_STRING) + 65536 + 16);
    ULONG got = 0;
    if (query(process, kProcessCommandLineInformation, buf.data(), static_cast<ULONG>(buf.size()), &got) < 0)
      return command_line_from_peb(process, query);
    const auto* s = reinterpret_cast<const UNICODE_STRING*>(buf.data());
    const auto* begin = reinterpret_cast<const unsigned char*>(s->Buffer);
    if (s->Buffer == nullptr || begin < buf.data() || begin + s->Length > buf.data() + buf.size()) return {};
    return std::wstring(s->Buffer, s->Length / sizeof(wchar_t));
  } catch (...) {
    return {};
  }
}

std::vector<DWORD> nonce_scan(const std::string& nonce, HANDLE job, bool kill_them) noexcept {
  std::vector<DWORD> found;
  if (nonce.size() < 8) return found;  // a short token would match strangers
  try {
    const std::wstring needle = wide(nonce);
    UniqueHandle snap(::CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0));
    if (!snap) return found;
    PROCESSENTRY32W e{};
    e.dwSize = sizeof e;
    const DWORD self = ::GetCurrentProcessId();
    for (BOOL more = ::Process32FirstW(snap.get(), &e); more; more = ::Process32NextW(snap.get(), &e)) {
      if (e.th32ProcessID == self || e.th32ProcessID == 0) continue;
      UniqueHandle p(::OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ | SYNCHRONIZE | (kill_them ? PROCESS_TERMINATE : 0),
                                   FALSE, e.th32ProcessID));
      if (!p) continue;  // gone, or not ours to open (another user's, protected)
      BOOL in_job = FALSE;
      if (job != nullptr && ::IsProcessInJob(p.get(), job, &in_job) && in_job) continue;  // the job's count has it
      // A process in another job of ours (a concurrent attempt's probe) is that job's, and its
      // memory must not be read: Wine 8.0's wineserver reads another process's memory under
      // PTRACE_ATTACH (server/ptrace.c, suspend_for_ptrace), and that SIGSTOP cuts short a server
      // request over 64 KiB the process is sending; Wine's client then kills the thread
      // (dlls/ntdll/unix/server.c, send_request: "partial write") and the process ends with exit
      // code 0. A pipe-flood probe died so mid-flood (docs/windows.md, "Output floods under Wine").
      if (in_a_harness_job(p.get())) continue;
      if (::WaitForSingleObject(p.get(), 0) == WAIT_OBJECT_0) continue;                   // already exited
      if (command_line_of(p.get()).find(needle) == std::wstring::npos) continue;
      found.push_back(e.th32ProcessID);
      if (kill_them) ::TerminateProcess(p.get(), kKilledExitCode);
    }
  } catch (...) {
  }
  return found;
}

}  // namespace breakout::win
