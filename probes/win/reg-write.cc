// breakout-probe-reg-write (Windows): sets a registry value under HKCU, the write a sandbox must confine.
//
//   breakout-probe-reg-write --key SUBKEY --value NAME --nonce N
//
// Opens HKCU\SUBKEY (RegOpenKeyExW, KEY_SET_VALUE: an existing key, the harness made or
// watches it) and sets NAME = N (REG_SZ, RegSetValueExW). The targets (class
// registry-write, harness/host/win/registry_key.h): the Run key, whose values start at
// every logon (persistence outside any sandbox session, MITRE ATT&CK T1547.001), an
// HKCU\Software canary key, and the per-attempt key the harness grants (the control).
// Microsoft Learn: "RegOpenKeyExW", "RegSetValueExW", "Run and RunOnce Registry Keys".
//
// Result: ok=true when the value was set; fields key, value. Whether it landed on the
// host is the harness's call: its snapshot of the key afterwards.
// Exit: 0 ok, 1 failed attempt, 64 usage error. Windows only (mingw-w64).
#include <string>

#include "harness/platform/win/unique_hkey.h"
#include "probes/common/args.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"

using namespace breakout::probe;

namespace {
constexpr char kUsage[] = "usage: breakout-probe-reg-write --key SUBKEY --value NAME --nonce N\n";
}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"key", Args::kValue}, {"value", Args::kValue}, {"nonce", Args::kValue}});
  const std::string key = args.require("key"), value = args.require("value"), nonce = args.require("nonce");
  std::wstring wkey, wvalue, wnonce;
  try {
    wkey = wide(key);
    wvalue = wide(value);
    wnonce = wide(nonce);
  } catch (const std::exception& e) {
    args.usage_error(std::string("argument is not WTF-8: ") + e.what());
  }
  ProbeReport r("reg-write");
  r.set("key", "HKCU\\" + key);
  r.set("value", value);
  breakout::UniqueHkey h;
  if (const LSTATUS st = ::RegOpenKeyExW(HKEY_CURRENT_USER, wkey.c_str(), 0, KEY_SET_VALUE, h.out()); st != ERROR_SUCCESS) {
    fail_win32(r, "RegOpenKeyExW", static_cast<DWORD>(st));
  } else if (const LSTATUS set = ::RegSetValueExW(h.get(), wvalue.c_str(), 0, REG_SZ,
                                                   reinterpret_cast<const BYTE*>(wnonce.c_str()),
                                                   static_cast<DWORD>((wnonce.size() + 1) * sizeof(wchar_t)));
             set != ERROR_SUCCESS) {
    fail_win32(r, "RegSetValueExW", static_cast<DWORD>(set));
  } else {
    r.succeed();
  }
  r.emit();
  return r.exit_code();
}
