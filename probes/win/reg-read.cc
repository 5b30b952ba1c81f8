// breakout-probe-reg-read (Windows): reads a registry value, the read a sandbox's token must refuse outside its own keys.
//
//   breakout-probe-reg-read --key HKCU\SUBKEY|HKLM\SUBKEY --value NAME
//
// Opens the key (RegOpenKeyExW, KEY_QUERY_VALUE: the one right a value read needs) and
// reads NAME (RegQueryValueExW) into a 4 KiB buffer; a longer value is a failed attempt
// (ERROR_MORE_DATA), never a partial read. The data goes into the report as "data": text
// for REG_SZ, REG_EXPAND_SZ and REG_MULTI_SZ (WTF-8, trailing NULs dropped), hex otherwise.
// The targets (class registry-read, harness/host/win/registry_secret.h): a key under
// HKCU\Software and one under HKLM\Software the harness created with a canary value, and the
// per-attempt key it grants (the control). Chromium's sandbox validation tests expect these
// reads denied under a restricted token (sandbox/win/src/registry_policy_test.cc).
// Microsoft Learn: "RegOpenKeyExW", "RegQueryValueExW", "Registry Key Security and Access Rights".
//
// Result: ok=true when the value was read; fields key, value, type, size, data. Whether
// the secret was read is the harness's call: its canary in this output.
// Exit: 0 ok, 1 failed attempt, 64 usage error. 10 s watchdog. Windows only (mingw-w64).
#include <chrono>
#include <cstdio>
#include <string>

#include "harness/platform/win/unique_hkey.h"
#include "probes/common/args.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-reg-read --key HKCU\\SUBKEY|HKLM\\SUBKEY --value NAME\n";
constexpr DWORD kMaxData = 4096;  // bytes of the value read (and reported)

std::string hex(const unsigned char* p, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += {kDigits[p[i] >> 4], kDigits[p[i] & 15]};
  return out;
}

// The data as the report shows it: string types as text, anything else as hex.
std::string describe(DWORD type, const unsigned char* p, DWORD size) {
  if ((type == REG_SZ || type == REG_EXPAND_SZ || type == REG_MULTI_SZ) && size % 2 == 0) {
    std::u16string w(size / 2, u'\0');
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<char16_t>(p[2 * i] | (p[2 * i + 1] << 8));
    while (!w.empty() && w.back() == u'\0') w.pop_back();
    return breakout::wtf8_from_utf16(w);
  }
  return hex(p, size);
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage, {{"key", Args::kValue}, {"value", Args::kValue}});
  const std::string key = args.require("key"), value = args.require("value");
  const std::size_t sep = key.find('\\');
  const std::string root_name = key.substr(0, sep);
  HKEY root = nullptr;
  if (root_name == "HKCU") root = HKEY_CURRENT_USER;
  else if (root_name == "HKLM") root = HKEY_LOCAL_MACHINE;
  if (root == nullptr || sep == std::string::npos) args.usage_error("--key starts with HKCU\\ or HKLM\\");
  std::wstring wsubkey, wvalue;
  try {
    wsubkey = wide(key.substr(sep + 1));
    wvalue = wide(value);
  } catch (const std::exception& e) {
    args.usage_error(std::string("argument is not WTF-8: ") + e.what());
  }
  start_watchdog(std::chrono::seconds(10));
  ProbeReport r("reg-read");
  r.set("key", key);
  r.set("value", value);
  breakout::UniqueHkey h;
  unsigned char data[kMaxData];
  DWORD type = 0, size = kMaxData;
  if (const LSTATUS st = ::RegOpenKeyExW(root, wsubkey.c_str(), 0, KEY_QUERY_VALUE, h.out()); st != ERROR_SUCCESS) {
    fail_win32(r, "RegOpenKeyExW", static_cast<DWORD>(st));
  } else if (const LSTATUS q = ::RegQueryValueExW(h.get(), wvalue.c_str(), nullptr, &type, data, &size);
             q != ERROR_SUCCESS) {
    fail_win32(r, "RegQueryValueExW", static_cast<DWORD>(q));  // ERROR_MORE_DATA: over the 4 KiB bound
  } else {
    r.set("type", static_cast<unsigned long>(type));
    r.set("size", static_cast<unsigned long>(size));
    r.set("data", describe(type, data, size));
    r.succeed();
  }
  r.emit();
  return r.exit_code();
}
