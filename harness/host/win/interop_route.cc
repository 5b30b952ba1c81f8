// The Windows side of interop_route.h: wsl.exe and a WSL distribution registered for this user.
#include "harness/host/interop_route.h"

#include <windows.h>

namespace breakout {

// wsl.exe lives in System32 once WSL is installed; each registered distribution is a subkey of
// HKCU\Software\Microsoft\Windows\CurrentVersion\Lxss (the same checks as probes/win/wsl_route.cc).
std::optional<std::string> interop_route_unavailable(const std::string& route) {
  if (route != "wsl") return "route " + route + " starts Windows programs from Linux (WSL interop); this is Windows";
  wchar_t sys[MAX_PATH + 1] = {};
  const UINT n = ::GetSystemDirectoryW(sys, MAX_PATH);
  if (n == 0 || n >= MAX_PATH) return std::nullopt;  // cannot tell: presumed present (judged)
  const std::wstring wsl = std::wstring(sys, n) + L"\\wsl.exe";
  // Only "not there" counts as absent; any other failure leaves the route presumed present (judged).
  if (::GetFileAttributesW(wsl.c_str()) == INVALID_FILE_ATTRIBUTES) {
    const DWORD e = ::GetLastError();
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
      return "the host has no System32\\wsl.exe (error " + std::to_string(e) + "): WSL is not installed";
  }
  HKEY key = nullptr;
  const LSTATUS rc = ::RegOpenKeyExW(HKEY_CURRENT_USER, L"Software\\Microsoft\\Windows\\CurrentVersion\\Lxss", 0, KEY_READ, &key);
  if (rc == ERROR_FILE_NOT_FOUND)
    return "the host has no HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Lxss: no WSL distribution registered";
  if (rc != ERROR_SUCCESS) return std::nullopt;
  DWORD subkeys = 0;
  const LSTATUS q = ::RegQueryInfoKeyW(key, nullptr, nullptr, nullptr, &subkeys, nullptr, nullptr, nullptr, nullptr,
                                       nullptr, nullptr, nullptr);
  ::RegCloseKey(key);
  if (q == ERROR_SUCCESS && subkeys == 0) return "the host's Lxss key has no subkey: no WSL distribution registered";
  return std::nullopt;
}

}  // namespace breakout
