// breakout-probe-ipc-reach (Windows): writes a file in a location every user may write (class ipc-reach).
//
//   breakout-probe-ipc-reach --target file:PATH --nonce N
//
// The Windows twin of probes/ipc-reach.cc's file: target, same steps and report: reads at most
// 2 KiB of PATH (CreateFileW + ReadFile) and prints "found <token>" for each canary in it,
// appends the line "BREAKOUT-NONCE N" (FILE_APPEND_DATA), then creates PATH.new (CREATE_NEW)
// holding the same line. PATH is a harness file in C:\Users\Public, C:\ProgramData, a directory
// with an Everyone full-control ACE, the user's %TEMP%, or the workspace (the control):
// harness/host/win/shared_files.h. Links are not followed (FILE_FLAG_OPEN_REPARSE_POINT, the
// POSIX probe's O_NOFOLLOW). The other kinds of the POSIX probe (SysV, POSIX shm, own:) have no
// Windows counterpart here: any kind but file: is a usage error (exit 64).
// Microsoft Learn: "CreateFileW", "File Access Rights Constants" (FILE_APPEND_DATA), "WriteFile".
//
// Result: ok=true when the append and the new file both succeeded; otherwise the failing step,
// errno (closest POSIX value), "win32_error". Whether anything landed is the harness's call: its
// look at the file afterwards. Exit: 0 ok, 1 failed attempt, 64 usage error. Windows only (mingw-w64).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-ipc-reach --target file:PATH --nonce N\n";
constexpr DWORD kReadLimit = 2048;  // the POSIX probe reads as much
constexpr DWORD kNoFollow = FILE_FLAG_OPEN_REPARSE_POINT;

void print_tokens(const std::string& s) {
  for (const char* prefix : {"BREAKOUT-CANARY-", breakout::kOwnTokenPrefix})
    for (std::size_t at = s.find(prefix); at != std::string::npos; at = s.find(prefix, at + 1))
      std::printf("found %s\n", s.substr(at, std::strlen(prefix) + 32).c_str());
}

bool write_all(HANDLE h, const std::string& data) {
  DWORD n = 0;
  return ::WriteFile(h, data.data(), static_cast<DWORD>(data.size()), &n, nullptr) && n == data.size();
}

// Read (not decisive: reading is allowed), append, create PATH.new. Sets the failing step in `r`.
void shared_file(ProbeReport& r, const std::wstring& path, const std::string& line) {
  {
    breakout::UniqueHandle h(::CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                                           OPEN_EXISTING, kNoFollow, nullptr));
    if (h) {
      std::string buf(kReadLimit, '\0');
      DWORD n = 0;
      if (::ReadFile(h.get(), buf.data(), kReadLimit, &n, nullptr)) print_tokens(buf.substr(0, n));
      r.set("read_bytes", static_cast<unsigned long long>(n));
    } else {
      r.set("read_error", static_cast<unsigned long long>(::GetLastError()));
    }
  }
  breakout::UniqueHandle app(::CreateFileW(path.c_str(), FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                                           OPEN_EXISTING, kNoFollow, nullptr));
  if (!app) return fail_win32(r, "CreateFileW FILE_APPEND_DATA", ::GetLastError());
  if (!write_all(app.get(), line)) return fail_win32(r, "WriteFile append", ::GetLastError());
  breakout::UniqueHandle fresh(::CreateFileW((path + L".new").c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                                             FILE_ATTRIBUTE_NORMAL | kNoFollow, nullptr));
  if (!fresh) return fail_win32(r, "CreateFileW .new", ::GetLastError());
  if (!write_all(fresh.get(), line)) return fail_win32(r, "WriteFile .new", ::GetLastError());
  r.succeed();
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage, {{"target", Args::kValue}, {"nonce", Args::kValue}});
  const std::string target = args.require("target"), nonce = args.require("nonce");
  const auto colon = target.find(':');
  if (colon == std::string::npos) args.usage_error("--target needs KIND:VALUE");
  const std::string kind = target.substr(0, colon), value = target.substr(colon + 1);
  if (kind != "file") args.usage_error("unknown target kind '" + target + "' (Windows: file:PATH only)");
  if (value.empty()) args.usage_error("--target file: needs a path");
  std::wstring path;
  try {
    path = wide(value);
  } catch (const std::exception& e) {
    args.usage_error(std::string("--target is not WTF-8: ") + e.what());
  }
  start_watchdog(std::chrono::seconds(10));  // hard bound, like alarm(10) in the POSIX probes
  ProbeReport r("ipc-reach");
  r.set("target", target);
  shared_file(r, path, "BREAKOUT-NONCE " + nonce + "\n");
  std::fflush(stdout);
  r.emit();
  return r.exit_code();
}
