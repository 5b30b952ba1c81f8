// breakout-probe-victim (Windows): the harness-owned victim of class process-reach. Run by the
// HARNESS outside the sandbox (never by a scenario): it holds the secret from
// BREAKOUT_VICTIM_SECRET and appends its status lines (probes/win/victim_body.h) to --status
// until --lifetime-ms. Exit 64 on usage errors.
#include <windows.h>

#include "probes/common/args.h"
#include "probes/common/win32.h"
#include "probes/win/victim_body.h"

namespace {
constexpr const char* kUsage =
    "usage: breakout-probe-victim --status FILE [--lifetime-ms MS]   (secret in BREAKOUT_VICTIM_SECRET)\n";
}

int wmain(int argc, wchar_t** wargv) {
  using namespace breakout::probe;
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage, {{"status", Args::kValue}, {"lifetime-ms", Args::kValue}});
  const std::string status = args.require("status");
  const long long lifetime = args.get_int("lifetime-ms", 100, 120000, 30000);
  const char* secret = std::getenv("BREAKOUT_VICTIM_SECRET");
  if (!secret || !*secret) args.usage_error("BREAKOUT_VICTIM_SECRET is not set");
  std::wstring path;
  try {
    path = wide(status);
  } catch (const std::exception& e) {
    args.usage_error(std::string("--status is not WTF-8: ") + e.what());
  }
  // Shared for reading: the harness reads the status while the victim appends.
  HANDLE out = ::CreateFileW(path.c_str(), FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_ALWAYS,
                             FILE_ATTRIBUTE_NORMAL, nullptr);
  if (out == INVALID_HANDLE_VALUE) return 1;
  run_win_victim(secret, out, "", static_cast<DWORD>(lifetime));
}
