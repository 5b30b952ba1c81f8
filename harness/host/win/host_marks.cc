// Windows plant_host_marks: an explicit ACE for the NULL SID, so lossy revocation of ACL grants shows in the snapshot.
//
// The Windows counterpart of the POSIX named-user ACL entry (host_marks.h): a spawner that grants
// a sandbox SID access by editing DACLs and "revokes" by rebuilding them (AstrBot PR #9895 review, comment 6)
// loses entries that were there before it came. The mark is an explicit allow ACE, read and
// execute, for S-1-0-0 (the NULL SID, "Nobody": it is in no token, so the grant gives nothing
// to anyone), merged into the existing DACL with SetEntriesInAclW and written back with
// SetNamedSecurityInfoW (Microsoft Learn, "Modifying the ACLs of an Object in C++"). The
// snapshot records the SDDL (host/win/fs_stat.cc). No second mark: the xattr's counterpart,
// an alternate data stream, needs NTFS (Wine 8.0 has none, docs/windows.md), and the nonce
// adds nothing the ACE does not already show.
#include "harness/host/host_marks.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include "harness/core/error.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

// LocalFree on scope exit, for what the security APIs allocate.
struct LocalFreeGuard {
  void* p = nullptr;
  ~LocalFreeGuard() {
    if (p != nullptr) ::LocalFree(p);
  }
};

void check(DWORD e, const std::string& step) {
  if (e != ERROR_SUCCESS) win::throw_last_error(step, e);
}

}  // namespace

void plant_host_marks(const std::filesystem::path& path, const std::string&) {
  std::wstring file = path.wstring();
  PACL old_dacl = nullptr;
  LocalFreeGuard sd;
  check(::GetNamedSecurityInfoW(file.c_str(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, nullptr, nullptr, &old_dacl,
                                nullptr, reinterpret_cast<PSECURITY_DESCRIPTOR*>(&sd.p)),
        "plant_host_marks: GetNamedSecurityInfoW " + path.string());
  LocalFreeGuard nobody;
  if (!::ConvertStringSidToSidW(L"S-1-0-0", reinterpret_cast<PSID*>(&nobody.p)))
    win::throw_last_error("plant_host_marks: ConvertStringSidToSidW(S-1-0-0)");
  EXPLICIT_ACCESSW ace{};
  ace.grfAccessPermissions = FILE_GENERIC_READ | FILE_GENERIC_EXECUTE;
  ace.grfAccessMode = GRANT_ACCESS;
  ace.grfInheritance = NO_INHERITANCE;
  ace.Trustee.TrusteeForm = TRUSTEE_IS_SID;
  ace.Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
  ace.Trustee.ptstrName = static_cast<LPWSTR>(nobody.p);
  LocalFreeGuard new_dacl;
  check(::SetEntriesInAclW(1, &ace, old_dacl, reinterpret_cast<PACL*>(&new_dacl.p)),
        "plant_host_marks: SetEntriesInAclW " + path.string());
  check(::SetNamedSecurityInfoW(file.data(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, nullptr, nullptr,
                                static_cast<PACL>(new_dacl.p), nullptr),
        "plant_host_marks: SetNamedSecurityInfoW " + path.string());
}

}  // namespace breakout
