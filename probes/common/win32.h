// Windows probe helpers: UTF-8 (WTF-8) argv from the wide command line, and Win32 failures in the report.
//
//   int wmain(int argc, wchar_t** wargv) {          // linked with -municode
//     WideArgs wide(argc, wargv);
//     Args args(wide.argc(), wide.argv(), kUsage, {...});
//     start_watchdog(std::chrono::seconds(10));   // the POSIX probes' alarm(10)
//     ... fail_win32(r, "CreateFileW", ::GetLastError());
//
// Windows only (mingw-w64), header-only.
#pragma once

#include <windows.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "harness/core/wtf8.h"
#include "harness/platform/win/unique_handle.h"  // RAII for the probes' handles too
#include "probes/common/report.h"

namespace breakout::probe {

// The wide argv as WTF-8 byte strings, so paths with any UTF-16 content round-trip
// into the harness's byte strings and back (harness/core/wtf8.h).
class WideArgs {
 public:
  WideArgs(int argc, wchar_t** wargv) {
    for (int i = 0; i < argc; ++i) {
      const std::wstring w(wargv[i]);
      strings_.push_back(wtf8_from_utf16(std::u16string(w.begin(), w.end())));
    }
    for (auto& s : strings_) pointers_.push_back(s.data());
  }
  int argc() const { return static_cast<int>(pointers_.size()); }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};

// A WTF-8 path as the wide string the *W functions take (throws on malformed input).
inline std::wstring wide(const std::string& wtf8) {
  const std::u16string u = utf16_from_wtf8(wtf8);
  return std::wstring(u.begin(), u.end());
}

// A hard bound over the whole probe, like alarm(N) in the POSIX probes (Windows has no SIGALRM):
// after `limit` the process exits 1, whatever call it hangs in.
inline void start_watchdog(std::chrono::seconds limit) {
  std::thread([limit] {
    std::this_thread::sleep_for(limit);
    std::_Exit(1);
  }).detach();
}

// The POSIX errno closest to a Win32 error, so reports read alike on both platforms;
// the Win32 code itself is kept as "win32_error". Microsoft Learn, "System Error Codes (0-499)".
inline int errno_from_win32(DWORD e) {
  switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE: return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_PRIVILEGE_NOT_HELD: return EACCES;
    case ERROR_WRITE_PROTECT: return EROFS;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_DIR_NOT_EMPTY: return ENOTEMPTY;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    case ERROR_INVALID_NAME:
    case ERROR_INVALID_PARAMETER: return EINVAL;
    case ERROR_NOT_SUPPORTED:
    case ERROR_CALL_NOT_IMPLEMENTED: return ENOSYS;
    default: return EIO;
  }
}

// A failed step: the report's usual fields plus "win32_error" and the system's message,
// in the harness's "[win32] step: message (error N)" form.
// The Win32 error of the last fail_win32 call (probes/win/path_form.h reads it to say why a form failed).
inline DWORD last_failure = 0;

inline void fail_win32(ProbeReport& r, const std::string& step, DWORD e) {
  last_failure = e;
  r.fail(step, errno_from_win32(e == 0 ? ERROR_GEN_FAILURE : e));
  r.set("win32_error", static_cast<unsigned long long>(e));
  wchar_t* text = nullptr;
  const DWORD n = ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                       FORMAT_MESSAGE_IGNORE_INSERTS,
                                   nullptr, e, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string message = "unknown error";
  if (n > 0 && text != nullptr) {
    std::wstring w(text, n);
    while (!w.empty() && (w.back() == L'\n' || w.back() == L'\r' || w.back() == L' ')) w.pop_back();
    message = wtf8_from_utf16(std::u16string(w.begin(), w.end()));
  }
  if (text != nullptr) ::LocalFree(text);
  r.set_detail("[win32] " + step + ": " + message + " (error " + std::to_string(e) + ")");
}

}  // namespace breakout::probe
