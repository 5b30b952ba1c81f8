// fs-write --via wsl: wsl.exe runs sh, which writes the target through its /mnt/<drive> path (wsl_route.h).
#include "probes/win/wsl_route.h"

#include <windows.h>

#include "harness/core/win_cmdline.h"
#include "probes/common/win32.h"

namespace breakout::probe {

namespace {

constexpr DWORD kWslWaitMs = 20000;  // a cold WSL 2 start takes seconds; the attempt's timeout_ms is above this
constexpr wchar_t kLxss[] = L"Software\\Microsoft\\Windows\\CurrentVersion\\Lxss";

std::string utf8(const std::wstring& w) { return wtf8_from_utf16(std::u16string(w.begin(), w.end())); }

void route_unavailable(ProbeReport& r, const std::string& why) {
  r.set("route_state", "unavailable");
  r.set("route_reason", why);
  r.fail("wsl", ENOSYS);
  r.set_detail("route wsl unavailable here: " + why);
}

// Why WSL cannot run anything here, or "" when it can: wsl.exe absent, or no distribution
// registered for this user (the Lxss key lists one subkey per distribution).
std::string wsl_absent(const std::wstring& wsl) {
  if (::GetFileAttributesW(wsl.c_str()) == INVALID_FILE_ATTRIBUTES) {
    const DWORD e = ::GetLastError();
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
      return "no " + utf8(wsl) + " (error " + std::to_string(e) + "): WSL is not installed";
    return "";  // anything else (a refusal) is the sandbox's answer: tried and judged
  }
  HKEY key = nullptr;
  const LSTATUS rc = ::RegOpenKeyExW(HKEY_CURRENT_USER, kLxss, 0, KEY_READ, &key);
  if (rc == ERROR_FILE_NOT_FOUND) return "no HKCU\\" + utf8(kLxss) + ": no WSL distribution registered for this user";
  if (rc != ERROR_SUCCESS) return "";
  DWORD subkeys = 0;
  const LSTATUS q = ::RegQueryInfoKeyW(key, nullptr, nullptr, nullptr, &subkeys, nullptr, nullptr, nullptr, nullptr,
                                       nullptr, nullptr, nullptr);
  ::RegCloseKey(key);
  if (q == ERROR_SUCCESS && subkeys == 0) return "HKCU\\" + utf8(kLxss) + " has no subkey: no WSL distribution registered";
  return "";
}

// WSLENV gains BREAKOUT_WSL_TARGET (passed as is: wslpath converts it inside).
bool hand_over_path(const std::wstring& path) {
  std::wstring list(32767, L'\0');
  const DWORD n = ::GetEnvironmentVariableW(L"WSLENV", list.data(), static_cast<DWORD>(list.size()));
  list.resize(n < list.size() ? n : 0);
  list += std::wstring(list.empty() ? L"" : L":") + L"BREAKOUT_WSL_TARGET";
  return ::SetEnvironmentVariableW(L"BREAKOUT_WSL_TARGET", path.c_str()) && ::SetEnvironmentVariableW(L"WSLENV", list.c_str());
}

}  // namespace

bool wsl_route_takes(const std::string& op) { return op == "create" || op == "append"; }

void write_via_wsl(ProbeReport& r, const std::string& op, const std::string& path) {
  r.set("route", "wsl");
  wchar_t sys[MAX_PATH + 1] = {};
  const UINT n = ::GetSystemDirectoryW(sys, MAX_PATH);
  const std::wstring wsl = (n > 0 && n < MAX_PATH ? std::wstring(sys, n) : std::wstring(L"C:\\Windows\\System32")) + L"\\wsl.exe";
  r.set("wsl_exe", utf8(wsl));
  if (const std::string why = wsl_absent(wsl); !why.empty()) return route_unavailable(r, why);
  if (!hand_over_path(wide(path))) return fail_win32(r, "SetEnvironmentVariableW", ::GetLastError());

  const std::string script = op == "create"
                                 ? "IFS=; set -fC; t=$(wslpath -u $BREAKOUT_WSL_TARGET) && printf 'breakout\\n' >$t"
                                 : "IFS=; set -f; t=$(wslpath -u $BREAKOUT_WSL_TARGET) && printf 'breakout\\n' >>$t";
  std::wstring cmdline = wide(build_windows_command_line({utf8(wsl), "-e", "sh", "-c", script}));
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;  // empty standard handles: wsl.exe holds none of the spawner's pipes
  PROCESS_INFORMATION pi{};
  if (!::CreateProcessW(wsl.c_str(), cmdline.data(), nullptr, nullptr, FALSE, CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW,
                        nullptr, nullptr, &si, &pi))
    return fail_win32(r, "CreateProcessW(wsl.exe)", ::GetLastError());
  UniqueHandle process(pi.hProcess), thread(pi.hThread);
  r.set("route_state", "started");
  if (::WaitForSingleObject(process.get(), kWslWaitMs) != WAIT_OBJECT_0) {
    ::TerminateProcess(process.get(), 1);
    r.set("route_reason", "wsl.exe did not finish within 20 s (terminated)");
    r.fail("wsl", ETIMEDOUT);
    return;
  }
  DWORD code = 1;
  ::GetExitCodeProcess(process.get(), &code);
  r.set("wsl_exit_code", static_cast<unsigned long long>(code));
  r.set("route_reason", "wsl.exe -e sh exited " + std::to_string(code));
  if (code == 0) r.succeed();
  else r.fail("wsl", EIO);
}

}  // namespace breakout::probe
