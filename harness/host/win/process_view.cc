// Windows: a probe's token and job read from the host: the box job's process list, OpenProcess + OpenProcessToken.
//
// Microsoft Learn: "QueryInformationJobObject" (JobObjectBasicProcessIdList), "OpenProcess"
// (PROCESS_QUERY_LIMITED_INFORMATION), "OpenProcessToken", "GetTokenInformation",
// "TOKEN_INFORMATION_CLASS", "IsProcessInJob", "QueryFullProcessImageNameW". Under Wine the
// token calls answer for a token Wine does not enforce (docs/windows.md, recon row).
#include "harness/host/process_view.h"

#include <windows.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "harness/core/text.h"
#include "harness/platform/win/containment.h"
#include "harness/platform/win/job.h"
#include "harness/platform/win/token_info.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

using nlohmann::json;
using win::integrity_name;
using win::sid_text;
using win::token_info;

// The same fields as probes/win/recon.cc, for `process` as the host sees it.
json view_of(HANDLE process, DWORD pid) {
  json v = {{"pid", pid}};
  json errors = json::array();
  BOOL in_job = FALSE;
  if (::IsProcessInJob(process, nullptr, &in_job)) v["in_job"] = in_job != FALSE;
  else errors.push_back(win::last_error_text("IsProcessInJob"));
  HANDLE raw = nullptr;
  if (!::OpenProcessToken(process, TOKEN_QUERY, &raw)) {
    errors.push_back(win::last_error_text("OpenProcessToken"));
    v["errors"] = errors;
    return v;
  }
  UniqueHandle token(raw);
  if (auto b = token_info(token.get(), TokenUser); !b.empty())
    v["user"] = sid_text(reinterpret_cast<TOKEN_USER*>(b.data())->User.Sid);
  else errors.push_back("TokenUser");
  if (auto b = token_info(token.get(), TokenIntegrityLevel); !b.empty()) {
    PSID sid = reinterpret_cast<TOKEN_MANDATORY_LABEL*>(b.data())->Label.Sid;
    const DWORD rid = *::GetSidSubAuthority(sid, *::GetSidSubAuthorityCount(sid) - 1);
    v["integrity"] = rid;
    v["integrity_name"] = integrity_name(rid);
  } else {
    errors.push_back("TokenIntegrityLevel");
  }
  v["restricted"] = ::IsTokenRestricted(token.get()) != FALSE;
  json restricting = json::array();
  if (auto b = token_info(token.get(), TokenRestrictedSids); !b.empty()) {
    const auto* groups = reinterpret_cast<TOKEN_GROUPS*>(b.data());
    for (DWORD i = 0; i < groups->GroupCount && i < 64; ++i) restricting.push_back(sid_text(groups->Groups[i].Sid));
  }
  v["restricting_sids"] = restricting;
  json privileges = json::array();
  if (auto b = token_info(token.get(), TokenPrivileges); !b.empty()) {
    const auto* p = reinterpret_cast<TOKEN_PRIVILEGES*>(b.data());
    for (DWORD i = 0; i < p->PrivilegeCount && i < 64; ++i) {
      wchar_t name[128] = {};
      DWORD len = 127;
      LUID luid = p->Privileges[i].Luid;
      if (!::LookupPrivilegeNameW(nullptr, &luid, name, &len)) continue;
      privileges.push_back({{"name", win::narrow(name)}, {"enabled", (p->Privileges[i].Attributes & SE_PRIVILEGE_ENABLED) != 0}});
    }
  } else {
    errors.push_back("TokenPrivileges");
  }
  v["privileges"] = privileges;
  if (auto b = token_info(token.get(), TokenIsAppContainer); b.size() >= sizeof(DWORD))
    v["app_container"] = *reinterpret_cast<DWORD*>(b.data()) != 0;
  else errors.push_back("TokenIsAppContainer");
  if (auto b = token_info(token.get(), TokenSessionId); b.size() >= sizeof(DWORD))
    v["session_id"] = *reinterpret_cast<DWORD*>(b.data());
  v["errors"] = errors;
  return v;
}

// The file name of the process's image, lower-cased ASCII (Windows file names compare case-insensitively).
std::string image_name(HANDLE process) {
  wchar_t path[1024] = {};
  DWORD len = 1023;
  if (!::QueryFullProcessImageNameW(process, 0, path, &len)) return "";
  std::string full = win::narrow(std::wstring_view(path, len));
  const std::size_t slash = full.find_last_of("\\/");
  std::string base = slash == std::string::npos ? full : full.substr(slash + 1);
  for (char& c : base) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return base;
}

}  // namespace

json read_probe_processes(const Containment& box, const std::string& image) {
  json views = json::array();
  HANDLE job = box.impl().job.get();  // the box's job object (platform/win/containment.h)
  // JOBOBJECT_BASIC_PROCESS_ID_LIST with room for 64 ids (more is a fork bomb, not a probe); the
  // ids follow the two counts, read through a pointer rather than past ProcessIdList[1].
  constexpr DWORD kIds = 64;
  std::vector<unsigned char> buf(offsetof(JOBOBJECT_BASIC_PROCESS_ID_LIST, ProcessIdList) + kIds * sizeof(ULONG_PTR));
  if (!::QueryInformationJobObject(job, JobObjectBasicProcessIdList, buf.data(), static_cast<DWORD>(buf.size()), nullptr) &&
      ::GetLastError() != ERROR_MORE_DATA)
    return views;
  const auto* head = reinterpret_cast<const JOBOBJECT_BASIC_PROCESS_ID_LIST*>(buf.data());
  const auto* ids = reinterpret_cast<const ULONG_PTR*>(buf.data() + offsetof(JOBOBJECT_BASIC_PROCESS_ID_LIST, ProcessIdList));
  std::string want = image + ".exe";
  for (char& c : want) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  const DWORD n = std::min<DWORD>(head->NumberOfProcessIdsInList, kIds);
  for (DWORD i = 0; i < n && views.size() < kMaxProbeViews; ++i) {
    const DWORD pid = static_cast<DWORD>(ids[i]);
    UniqueHandle process(::OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid));
    if (!process || image_name(process.get()) != want) continue;
    json v = view_of(process.get(), pid);
    BOOL in_box = FALSE;  // the job it was found through: the harness's kill net, not the sandbox's
    if (::IsProcessInJob(process.get(), job, &in_box)) v["in_harness_job"] = in_box != FALSE;
    v["found_by"] = "JobObjectBasicProcessIdList of the harness's job";
    views.push_back(std::move(v));
  }
  return views;
}

json read_own_process() { return view_of(::GetCurrentProcess(), ::GetCurrentProcessId()); }

}  // namespace breakout
