// Reading an access token: GetTokenInformation buffers, SID strings, integrity names; shared by the recon probe and the host's view of it.
//
// Header-only so the recon probe (probes/win/recon.cc, linked without breakout_core) and the
// host-side reader (harness/host/win/process_view.cc) print the same fields the same way:
// harness/host/recon_compare.cc compares the two. Microsoft Learn: "GetTokenInformation",
// "TOKEN_INFORMATION_CLASS", "ConvertSidToStringSidW", "Mandatory Integrity Control".
#pragma once

#include <windows.h>
#include <sddl.h>

#include <string>
#include <vector>

#include "harness/core/wtf8.h"

namespace breakout::win {

// GetTokenInformation into a buffer of the size it asks for; empty on failure (or above 1 MiB).
inline std::vector<unsigned char> token_info(HANDLE token, TOKEN_INFORMATION_CLASS what) {
  DWORD need = 0;
  ::GetTokenInformation(token, what, nullptr, 0, &need);
  if (need == 0 || need > (1u << 20)) return {};
  std::vector<unsigned char> buf(need);
  if (!::GetTokenInformation(token, what, buf.data(), need, &need)) return {};
  return buf;
}

// "S-1-5-21-…" as WTF-8; "?" when the SID cannot be converted.
inline std::string sid_text(PSID sid) {
  LPWSTR s = nullptr;
  if (!::ConvertSidToStringSidW(sid, &s)) return "?";
  const std::wstring_view w(s);
  std::string out = wtf8_from_utf16(std::u16string_view(reinterpret_cast<const char16_t*>(w.data()), w.size()));
  ::LocalFree(s);
  return out;
}

// The mandatory label's RID (0x1000 low, 0x2000 medium, 0x3000 high, 0x4000 system) by name.
inline const char* integrity_name(DWORD rid) {
  if (rid >= SECURITY_MANDATORY_SYSTEM_RID) return "system";
  if (rid >= SECURITY_MANDATORY_HIGH_RID) return "high";
  if (rid >= SECURITY_MANDATORY_MEDIUM_RID) return "medium";
  if (rid >= SECURITY_MANDATORY_LOW_RID) return "low";
  return "untrusted";
}

}  // namespace breakout::win
