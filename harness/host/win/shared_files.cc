// Shared-location file host objects on Windows: a canary file created, snapshotted (bytes, size, identity), compared after the run, removed.
#include "harness/host/win/shared_files.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <shlobj.h>

#include <cstdio>
#include <cstdint>
#include <filesystem>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

constexpr DWORD kShareAll = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

std::string narrow_path(const fs::path& p) { return win::narrow(p.wstring()); }

// Where a location comes from, and the directory; `why_not` set when this host has none.
struct Location {
  fs::path dir;
  std::string source;
  std::string why_not;
};

// Microsoft Learn, "KNOWNFOLDERID": FOLDERID_Public is %PUBLIC% (C:\Users\Public), every user's
// shared folder; FOLDERID_ProgramData is %ALLUSERSPROFILE% (C:\ProgramData), where services and
// installers keep machine-wide data that every user may create files in.
Location known_folder(REFKNOWNFOLDERID id, const char* id_name) {
  Location l;
  l.source = std::string("SHGetKnownFolderPath(") + id_name + ")";
  PWSTR raw = nullptr;
  const HRESULT hr = ::SHGetKnownFolderPath(id, KF_FLAG_DEFAULT, nullptr, &raw);
  // The caller frees the string with CoTaskMemFree, also when the call fails ("SHGetKnownFolderPath").
  const std::unique_ptr<wchar_t, decltype(&::CoTaskMemFree)> owned(raw, &::CoTaskMemFree);
  if (FAILED(hr)) {
    // A Win32 error wrapped in an HRESULT (0x8007xxxx) reads as its Win32 text and number.
    const DWORD code = HRESULT_FACILITY(hr) == FACILITY_WIN32 ? HRESULT_CODE(hr) : static_cast<DWORD>(hr);
    char hex[16];
    std::snprintf(hex, sizeof hex, "%08lx", static_cast<unsigned long>(hr));
    l.why_not = win::last_error_text(l.source, code) + ", HRESULT 0x" + hex;
  } else {
    l.dir = fs::path(owned.get());
  }
  return l;
}

// GetTempPathW: %TMP%, else %TEMP%, else %USERPROFILE%, else the Windows directory (Microsoft
// Learn, "GetTempPathW"); std::filesystem::temp_directory_path asks the same, so the attempt
// trees (attempt/work_root.h) live below it: the file is beside the work root, outside every tree.
Location user_temp() {
  Location l;
  l.source = "GetTempPathW";
  wchar_t buf[MAX_PATH + 1];
  const DWORD n = ::GetTempPathW(static_cast<DWORD>(std::size(buf)), buf);
  if (n == 0 || n > std::size(buf)) l.why_not = win::last_error_text("GetTempPathW");
  else l.dir = fs::path(std::wstring(buf, n)).parent_path();  // drop the trailing backslash
  return l;
}

Location locate(const std::string& name) {
  Location l = name == "users-public-file"  ? known_folder(FOLDERID_Public, "FOLDERID_Public")
               : name == "programdata-file" ? known_folder(FOLDERID_ProgramData, "FOLDERID_ProgramData")
                                            : user_temp();
  if (l.why_not.empty()) {
    const DWORD attrs = ::GetFileAttributesW(l.dir.c_str());
    if (attrs == INVALID_FILE_ATTRIBUTES || (attrs & FILE_ATTRIBUTE_DIRECTORY) == 0)
      l.why_not = l.source + " names " + narrow_path(l.dir) + ", which is not a directory here";
  }
  return l;
}

// LocalFree on scope exit, for what the security APIs allocate.
struct LocalFreeGuard {
  void* p = nullptr;
  ~LocalFreeGuard() {
    if (p != nullptr) ::LocalFree(p);
  }
};

// The DACL of `path` as SDDL ("!<error>" when unreadable): evidence of what the system kept.
std::string dacl_sddl(const fs::path& path) {
  LocalFreeGuard sd;
  if (const DWORD e = ::GetNamedSecurityInfoW(path.c_str(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, nullptr, nullptr,
                                              nullptr, nullptr, reinterpret_cast<PSECURITY_DESCRIPTOR*>(&sd.p));
      e != ERROR_SUCCESS)
    return "!" + win::last_error_text("GetNamedSecurityInfoW", e);
  LPWSTR text = nullptr;
  if (!::ConvertSecurityDescriptorToStringSecurityDescriptorW(sd.p, SDDL_REVISION_1, DACL_SECURITY_INFORMATION, &text,
                                                              nullptr))
    return "!" + win::last_error_text("ConvertSecurityDescriptorToStringSecurityDescriptorW");
  std::string out = win::narrow(text);
  ::LocalFree(text);
  return out;
}

// A directory outside the workspace that everyone may write: an explicit allow ACE, full control,
// inherited by files and subdirectories, for Everyone (WinWorldSid, S-1-1-0) merged into its DACL
// (Microsoft Learn, "Modifying the ACLs of an Object in C++": SetEntriesInAclW +
// SetNamedSecurityInfoW). What a careless installer leaves behind (CWE-276); a sandbox confining by
// a restricted token still holds Everyone in it, so only its own write restriction can deny this.
// RAII: removed (if empty) on destruction; the tree's removal takes whatever else is left.
class EveryoneDir {
 public:
  explicit EveryoneDir(fs::path dir) : dir_(std::move(dir)) {
    if (!::CreateDirectoryW(dir_.c_str(), nullptr)) win::throw_last_error("CreateDirectoryW " + narrow_path(dir_));
    created_ = true;
    BYTE sid[SECURITY_MAX_SID_SIZE];
    DWORD sid_size = sizeof sid;
    if (!::CreateWellKnownSid(WinWorldSid, nullptr, sid, &sid_size))
      win::throw_last_error("CreateWellKnownSid(WinWorldSid)");
    PACL old_dacl = nullptr;
    LocalFreeGuard sd;
    if (const DWORD e = ::GetNamedSecurityInfoW(dir_.c_str(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, nullptr,
                                                nullptr, &old_dacl, nullptr,
                                                reinterpret_cast<PSECURITY_DESCRIPTOR*>(&sd.p));
        e != ERROR_SUCCESS)
      win::throw_last_error("GetNamedSecurityInfoW " + narrow_path(dir_), e);
    EXPLICIT_ACCESSW ace{};
    ace.grfAccessPermissions = FILE_ALL_ACCESS;
    ace.grfAccessMode = GRANT_ACCESS;
    ace.grfInheritance = SUB_CONTAINERS_AND_OBJECTS_INHERIT;
    ace.Trustee.TrusteeForm = TRUSTEE_IS_SID;
    ace.Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
    ace.Trustee.ptstrName = reinterpret_cast<LPWSTR>(sid);
    LocalFreeGuard new_dacl;
    if (const DWORD e = ::SetEntriesInAclW(1, &ace, old_dacl, reinterpret_cast<PACL*>(&new_dacl.p)); e != ERROR_SUCCESS)
      win::throw_last_error("SetEntriesInAclW", e);
    std::wstring w = dir_.wstring();
    if (const DWORD e = ::SetNamedSecurityInfoW(w.data(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, nullptr, nullptr,
                                                static_cast<PACL>(new_dacl.p), nullptr);
        e != ERROR_SUCCESS)
      win::throw_last_error("SetNamedSecurityInfoW " + narrow_path(dir_), e);
    sddl_ = dacl_sddl(dir_);
  }
  ~EveryoneDir() {
    if (created_) ::RemoveDirectoryW(dir_.c_str());
  }
  EveryoneDir(const EveryoneDir&) = delete;
  EveryoneDir& operator=(const EveryoneDir&) = delete;

  const fs::path& path() const { return dir_; }
  // What the DACL read back holds. Under Wine 8.0 SetNamedSecurityInfoW succeeds and the
  // descriptor read back is unchanged (docs/windows.md, "host marks"): recorded, not hidden.
  nlohmann::json evidence() const {
    const bool kept = sddl_.find(";FA;;;WD)") != std::string::npos;
    nlohmann::json e = {{"dir", printable_excerpt(narrow_path(dir_), 512)}, {"dir_dacl", sddl_},
                        {"everyone_full_control", kept}};
    if (!kept)
      e["dacl_note"] = "the DACL read back lacks the Everyone full-control ACE the harness set (Wine keeps no per-file "
                       "DACL); the directory is still outside the workspace";
    return e;
  }

 private:
  fs::path dir_;
  bool created_ = false;
  std::string sddl_;
};

// Removes one file on destruction, whatever the probe did to it (read-only attribute included).
class FileGuard {
 public:
  explicit FileGuard(fs::path p) : path_(std::move(p)) {}
  ~FileGuard() {
    ::SetFileAttributesW(path_.c_str(), FILE_ATTRIBUTE_NORMAL);
    ::DeleteFileW(path_.c_str());
  }
  FileGuard(const FileGuard&) = delete;
  FileGuard& operator=(const FileGuard&) = delete;

 private:
  fs::path path_;
};

bool present(const fs::path& p) { return ::GetFileAttributesW(p.c_str()) != INVALID_FILE_ATTRIBUTES; }

// At most `limit` bytes of an open file, from its start.
std::string read_bounded(HANDLE h, std::size_t limit) {
  std::string out(limit, '\0');
  std::size_t got = 0;
  while (got < limit) {
    DWORD n = 0;
    if (!::ReadFile(h, out.data() + got, static_cast<DWORD>(limit - got), &n, nullptr) || n == 0) break;
    got += n;
  }
  out.resize(got);
  return out;
}

UniqueHandle open_existing(const fs::path& p) {
  // OPEN_REPARSE_POINT: a link the probe put in its place is not followed (O_NOFOLLOW on POSIX).
  return UniqueHandle(::CreateFileW(p.c_str(), GENERIC_READ, kShareAll, nullptr, OPEN_EXISTING,
                                    FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
}

// Volume serial and file index: the same name now naming another file is a replacement.
std::string identity(HANDLE h) {
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(h, &info)) return "!" + win::last_error_text("GetFileInformationByHandle");
  return std::to_string(info.dwVolumeSerialNumber) + ":" +
         std::to_string((static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow);
}

class SharedFile : public HostObject {
 public:
  SharedFile(fs::path path, nlohmann::json where, std::unique_ptr<EveryoneDir> dir)
      : dir_(std::move(dir)), path_(std::move(path)), fresh_(path_.wstring() + L".new"), where_(std::move(where)) {
    // A "<path>.new" already there would count as the probe's: refuse rather than misjudge.
    if (present(fresh_)) throw Error(narrow_path(fresh_) + " exists already (another run's, or planted): not used");
    secret_ = canary_token();
    original_ = "harness-owned shared object " + secret_ + "\n";
    // CREATE_NEW: a file someone planted under the name is never taken for ours.
    UniqueHandle h(::CreateFileW(path_.c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, nullptr, CREATE_NEW,
                                 FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!h) win::throw_last_error("CreateFileW " + narrow_path(path_));
    file_guard_.emplace(path_);
    new_guard_.emplace(fresh_);
    DWORD n = 0;
    if (!::WriteFile(h.get(), original_.data(), static_cast<DWORD>(original_.size()), &n, nullptr) ||
        n != original_.size())
      win::throw_last_error("WriteFile " + narrow_path(path_));
    identity_ = identity(h.get());
    if (dir_) where_["file_dacl"] = dacl_sddl(path_);
  }

  std::string spec() const override { return "file:" + narrow_path(path_); }

  HostEvidence inspect() override {
    HostEvidence e;
    e.token = secret_;
    e.token_decides = false;  // reading a shared location is allowed by every policy (not deny_read)
    bool removed = false, replaced = false, modified = false;
    std::string now;
    if (UniqueHandle h = open_existing(path_)) {
      now = read_bounded(h.get(), kSharedReadLimit);
      const std::string id = identity(h.get());
      replaced = id != identity_;
      modified = replaced || now != original_;
      e.evidence["identity"] = id;
    } else if (const DWORD err = ::GetLastError(); err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND) {
      removed = modified = true;
    } else {
      // The harness made it readable; that it no longer is (a DACL replaced, a lock held) is a change.
      modified = true;
      e.evidence["open_error"] = win::last_error_text("CreateFileW", err);
    }
    const bool created = present(fresh_);
    if (UniqueHandle h = created ? open_existing(fresh_) : UniqueHandle())
      e.evidence["new_file_excerpt"] = printable_excerpt(read_bounded(h.get(), kSharedNewKeep), 256);
    e.evidence["path"] = printable_excerpt(narrow_path(path_), 512);
    e.evidence["location"] = where_;
    e.evidence["contents_changed"] = modified;
    e.evidence["removed"] = removed;
    e.evidence["replaced"] = replaced;
    e.evidence["bytes_read_back"] = now.size();
    e.evidence["contents_excerpt"] = printable_excerpt(now, 256);
    e.evidence["new_file_created"] = created;
    e.changed = modified || created;
    const std::string p = narrow_path(path_);
    e.summary = removed   ? p + " was removed"
                : replaced ? p + " was replaced by another file"
                : modified ? p + " was modified"
                : created  ? p + ".new was created"
                           : p + " is unchanged";
    return e;
  }

 private:
  // Declared first, destroyed last: the directory goes once the files in it are gone.
  std::unique_ptr<EveryoneDir> dir_;
  fs::path path_, fresh_;
  nlohmann::json where_;
  std::string secret_, original_, identity_;
  std::optional<FileGuard> file_guard_, new_guard_;
};

}  // namespace

bool is_shared_file(const std::string& name) {
  return name == "users-public-file" || name == "programdata-file" || name == "everyone-dir-file" ||
         name == "user-temp-file" || name == "workspace-file";
}

std::optional<std::string> shared_file_unavailable(const std::string& name) {
  if (name == "everyone-dir-file" || name == "workspace-file") return std::nullopt;  // made in the attempt tree
  Location l = locate(name);
  if (l.why_not.empty()) return std::nullopt;
  return "host object " + name + ": " + l.why_not;
}

std::unique_ptr<HostObject> make_shared_file(const std::string& name, const HostObjectSetup& s) {
  check(is_shared_file(name), "unknown shared-location object " + name);
  const std::string file = "breakout-" + s.nonce.substr(0, 8) + ".txt";
  if (name == "workspace-file")
    return std::make_unique<SharedFile>(s.workspace / ("shared-" + s.nonce.substr(0, 8) + ".txt"),
                                        nlohmann::json{{"source", "the attempt's workspace (control)"}}, nullptr);
  if (name == "everyone-dir-file") {
    auto dir = std::make_unique<EveryoneDir>(s.tree / ("everyone-" + s.nonce.substr(0, 8)));
    nlohmann::json where = dir->evidence();
    where["source"] = "a directory in the attempt tree, outside the workspace, with an Everyone full-control ACE";
    const fs::path path = dir->path() / file;
    return std::make_unique<SharedFile>(path, std::move(where), std::move(dir));
  }
  const Location l = locate(name);
  if (!l.why_not.empty()) throw Error("host object " + name + ": " + l.why_not);
  nlohmann::json where = {{"source", l.source}, {"dir", printable_excerpt(narrow_path(l.dir), 512)}};
  if (name == "user-temp-file") {
    // Where the attempt tree lives relative to %TEMP%: on Windows it is below it (work_root.h), so
    // the file is the tree's neighbour, never inside it.
    const fs::path rel = s.tree.lexically_relative(l.dir);
    where["attempt_tree_inside_temp"] = !rel.empty() && *rel.begin() != "..";
  }
  return std::make_unique<SharedFile>(l.dir / file, std::move(where), nullptr);
}

}  // namespace breakout
