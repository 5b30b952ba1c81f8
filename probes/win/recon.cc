// breakout-probe-recon (Windows): describes the sandbox's token, job and desktop from inside (evidence for reports, never a verdict).
//
//   breakout-probe-recon [--nonce N] [--hold-ms MS --release FILE]
//
// --nonce only marks the command line; --hold-ms keeps the process alive after the report
// until FILE exists or MS passed (at most 30 s), so the harness can read its token from the
// host through the job's process list (class recon, harness/host/process_view.h).
// Reports: "user" (the token user's SID string), "integrity" (the mandatory label's RID:
// 0x1000 low, 0x2000 medium, 0x3000 high, 0x4000 system) and its name, "restricted"
// (IsTokenRestricted) with "restricting_sids", "privileges" (name + enabled), "app_container"
// (TokenIsAppContainer), "session_id", "in_job" (IsProcessInJob) with "job_limit_flags"
// and "job_active_processes" (QueryInformationJobObject with a null handle: the job of the
// calling process), "window_station" and "desktop" (GetUserObjectInformationW UOI_NAME).
// The seeds' Windows sandboxes combine a restricted token, a synthetic SID, a job and a
// private desktop: this shows which of them a run actually had.
// Microsoft Learn: "GetTokenInformation", "TOKEN_INFORMATION_CLASS", "IsProcessInJob",
// "QueryInformationJobObject", "GetUserObjectInformationW", "Mandatory Integrity Control".
// Result: ok=true when the process token could be opened; fields left out where a call failed
// (its step in "errors"). Exit: 0 ok, 1 no token, 64 usage error. Windows only (mingw-w64).
#include <windows.h>

#include <string>
#include <vector>

#include "harness/platform/win/token_info.h"  // as the host reads them (host/win/process_view.cc)
#include "probes/common/args.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"

using namespace breakout::probe;
using breakout::win::integrity_name;
using breakout::win::sid_text;
using breakout::win::token_info;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-recon [--nonce N] [--hold-ms MS --release FILE]\n";

std::string narrow(const std::wstring& w) { return breakout::wtf8_from_utf16(std::u16string(w.begin(), w.end())); }

std::string object_name(HANDLE obj) {
  wchar_t name[256] = {};
  DWORD need = 0;
  if (!::GetUserObjectInformationW(obj, UOI_NAME, name, sizeof name - sizeof(wchar_t), &need)) return "?";
  return narrow(name);
}

// Stays alive (the report already out) until `release` exists or `ms` passed: 10 ms polls.
void hold(long long ms, const std::string& release) {
  const std::wstring path = release.empty() ? std::wstring() : wide(release);
  for (long long waited = 0; waited < ms; waited += 10) {
    if (!path.empty() && ::GetFileAttributesW(path.c_str()) != INVALID_FILE_ATTRIBUTES) return;
    ::Sleep(10);
  }
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"nonce", Args::kValue}, {"hold-ms", Args::kValue}, {"release", Args::kValue}});
  const long long hold_ms = args.get_int("hold-ms", 0, 30000, 0);
  ProbeReport r("recon");
  JsonArray errors;
  HANDLE raw = nullptr;
  if (!::OpenProcessToken(::GetCurrentProcess(), TOKEN_QUERY, &raw)) {
    fail_win32(r, "OpenProcessToken", ::GetLastError());
    r.emit();
    hold(hold_ms, args.get("release").value_or(""));
    return r.exit_code();
  }
  breakout::UniqueHandle token(raw);
  if (auto b = token_info(token.get(), TokenUser); !b.empty())
    r.set("user", sid_text(reinterpret_cast<TOKEN_USER*>(b.data())->User.Sid));
  else errors.add("TokenUser");
  if (auto b = token_info(token.get(), TokenIntegrityLevel); !b.empty()) {
    PSID sid = reinterpret_cast<TOKEN_MANDATORY_LABEL*>(b.data())->Label.Sid;
    const DWORD rid = *::GetSidSubAuthority(sid, *::GetSidSubAuthorityCount(sid) - 1);
    r.set("integrity", static_cast<unsigned long long>(rid));
    r.set("integrity_name", integrity_name(rid));
  } else {
    errors.add("TokenIntegrityLevel");
  }
  r.set("restricted", ::IsTokenRestricted(token.get()) != FALSE);
  JsonArray restricting;
  if (auto b = token_info(token.get(), TokenRestrictedSids); !b.empty()) {
    const auto* groups = reinterpret_cast<TOKEN_GROUPS*>(b.data());
    for (DWORD i = 0; i < groups->GroupCount && i < 64; ++i) restricting.add(sid_text(groups->Groups[i].Sid));
  }
  r.set_raw("restricting_sids", restricting.str());
  JsonArray privileges;
  if (auto b = token_info(token.get(), TokenPrivileges); !b.empty()) {
    const auto* p = reinterpret_cast<TOKEN_PRIVILEGES*>(b.data());
    for (DWORD i = 0; i < p->PrivilegeCount && i < 64; ++i) {
      wchar_t name[128] = {};
      DWORD len = 127;
      LUID luid = p->Privileges[i].Luid;
      if (!::LookupPrivilegeNameW(nullptr, &luid, name, &len)) continue;
      JsonObject o;
      o.set("name", narrow(name));
      o.set("enabled", (p->Privileges[i].Attributes & SE_PRIVILEGE_ENABLED) != 0);
      privileges.add_raw(o.str());
    }
  } else {
    errors.add("TokenPrivileges");
  }
  r.set_raw("privileges", privileges.str());
  if (auto b = token_info(token.get(), TokenIsAppContainer); b.size() >= sizeof(DWORD))
    r.set("app_container", *reinterpret_cast<DWORD*>(b.data()) != 0);
  else errors.add("TokenIsAppContainer");
  if (auto b = token_info(token.get(), TokenSessionId); b.size() >= sizeof(DWORD))
    r.set("session_id", static_cast<unsigned long long>(*reinterpret_cast<DWORD*>(b.data())));
  BOOL in_job = FALSE;
  if (::IsProcessInJob(::GetCurrentProcess(), nullptr, &in_job)) r.set("in_job", in_job != FALSE);
  else errors.add("IsProcessInJob");
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  if (in_job && ::QueryInformationJobObject(nullptr, JobObjectExtendedLimitInformation, &limits, sizeof limits, nullptr))
    r.set("job_limit_flags", static_cast<unsigned long long>(limits.BasicLimitInformation.LimitFlags));
  JOBOBJECT_BASIC_ACCOUNTING_INFORMATION acct{};
  if (in_job && ::QueryInformationJobObject(nullptr, JobObjectBasicAccountingInformation, &acct, sizeof acct, nullptr))
    r.set("job_active_processes", static_cast<unsigned long long>(acct.ActiveProcesses));
  r.set("window_station", object_name(::GetProcessWindowStation()));
  r.set("desktop", object_name(::GetThreadDesktop(::GetCurrentThreadId())));
  r.set_raw("errors", errors.str());
  r.succeed();
  r.emit();
  hold(hold_ms, args.get("release").value_or(""));
  return r.exit_code();
}
