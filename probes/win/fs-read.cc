// breakout-probe-fs-read (Windows): tries to read a file it is given.
//
//   breakout-probe-fs-read --path P [--echo | --key K] [--form F [--link L]]
//
// The Windows twin of probes/fs-read.cc, same arguments and report: reads at most
// 1 MiB of P (CreateFileW + ReadFile) and reports "size", "truncated", "sha256"
// (or "keyed_sha256" with --key) and, for disk files, "file_size". --echo prints
// the bytes between BREAKOUT-ECHO-BEGIN/END lines (stdout in binary mode, so the
// bytes are not translated). Paths are WTF-8 (harness/core/wtf8.h).
// Reads are synchronous, so a pipe or device at P could block: a 10 s watchdog
// thread ends the process (exit 1, no report) instead, like alarm(10) on POSIX.
// --form F reads P through a Windows path form, as in fs-write (probes/win/path_form.h).
// Microsoft Learn: "CreateFileW", "ReadFile", "GetFileType", "GetFileSizeEx".
//
// Result: ok=true when open and read succeeded; otherwise errno (closest POSIX
// value), errname, "win32_error" and "[win32] step: message (error N)".
// Exit: 0 ok, 1 failed attempt, 64 usage error.
//
// Windows only (mingw-w64).
#include <fcntl.h>
#include <io.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "harness/core/sha256.h"
#include "probes/common/args.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"
#include "probes/win/path_form.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-fs-read --path P [--echo | --key K] [--form F [--link L]]\n";
constexpr std::size_t kMaxRead = 1u << 20;

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"path", Args::kValue}, {"echo", Args::kFlag}, {"key", Args::kValue}, {"form", Args::kValue},
             {"link", Args::kValue}});
  const std::string path = args.require("path");
  const bool echo = args.has("echo");
  const bool keyed = args.has("key");
  if (echo && keyed) args.usage_error("--echo and --key exclude each other");
  const std::string form = args.get("form").value_or("");
  if (!form.empty() && !breakout::winpath::is_spelling(form)) args.usage_error("unknown --form '" + form + "'");
  start_watchdog(std::chrono::seconds(10));  // hard bound, like alarm(10) in the POSIX probe
  _setmode(_fileno(stdout), _O_BINARY);

  ProbeReport r("fs-read");
  r.set("path", path);
  std::wstring p;
  FormAim aim(r, form, args.get("link").value_or(""));
  try {
    if (!aim.spell(path, &p)) {
      r.emit();
      return r.exit_code();
    }
  } catch (const std::exception& e) {
    args.usage_error(std::string("path is not WTF-8: ") + e.what());
  }

  std::string data;
  bool truncated = false;
  breakout::UniqueHandle h(::CreateFileW(p.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                         nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
  const bool opened = static_cast<bool>(h);
  if (!opened) {
    fail_win32(r, "CreateFileW", ::GetLastError());
  } else {
    LARGE_INTEGER size{};
    if (::GetFileType(h.get()) == FILE_TYPE_DISK && ::GetFileSizeEx(h.get(), &size))
      r.set("file_size", static_cast<long long>(size.QuadPart));
    char buf[65536];
    DWORD read_error = 0;
    while (data.size() <= kMaxRead) {  // one byte past the cap tells whether P has more
      DWORD n = 0;
      if (!::ReadFile(h.get(), buf, sizeof buf, &n, nullptr)) {
        const DWORD e = ::GetLastError();
        if (e != ERROR_BROKEN_PIPE && e != ERROR_HANDLE_EOF) read_error = e;
        break;
      }
      if (n == 0) break;
      data.append(buf, n);
    }
    if (data.size() > kMaxRead) {
      data.resize(kMaxRead);
      truncated = true;
    }
    if (read_error != 0) fail_win32(r, "ReadFile", read_error);
    else r.succeed();
    r.set("size", static_cast<unsigned long long>(data.size()));
    r.set("truncated", truncated);
    if (keyed)
      r.set("keyed_sha256", breakout::keyed_sha256_hex(args.require("key"), data));
    else
      r.set("sha256", breakout::sha256_hex(data));
  }
  aim.after_op();
  if (echo && opened) {
    r.set("echoed", static_cast<unsigned long long>(data.size()));
    std::fputs("BREAKOUT-ECHO-BEGIN\n", stdout);
    std::fwrite(data.data(), 1, data.size(), stdout);
    if (!data.empty() && data.back() != '\n') std::fputc('\n', stdout);
    std::fputs("BREAKOUT-ECHO-END\n", stdout);
  }
  r.emit();
  return r.exit_code();
}
