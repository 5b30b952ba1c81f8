// Windows stat_path: object identity (volume serial + file index), attributes, bounded SHA-256, reparse targets.
//
// Microsoft Learn, "GetFileInformationByHandle": dwVolumeSerialNumber plus
// nFileIndexHigh/Low "uniquely identify a file on a single computer" (the
// BY_HANDLE_FILE_INFORMATION remarks) — our dev/inode. Opened with
// FILE_FLAG_OPEN_REPARSE_POINT (the link itself, like lstat) and
// FILE_FLAG_BACKUP_SEMANTICS (needed to open directories; "CreateFileW").
// A reparse point (symlink, junction) is type 'l'; its digest is where it leads,
// GetFinalPathNameByHandleW of the target opened through it ("!..." if dangling).
// The security descriptor is in xattrs["sddl"], as SDDL text (owner, DACL with its inherited
// ACEs, mandatory label: GetSecurityInfo + ConvertSecurityDescriptorToStringSecurityDescriptorW,
// Microsoft Learn), the counterpart of the POSIX ACL xattrs: a grant a spawner left behind, or a
// planted entry it lost on revocation (host_marks.h), shows in the snapshot diff.
// Named data streams ("f:name:$DATA") are in xattrs["streams"] with their sizes and digests: a
// write to one leaves the default stream, and so the digest, as it was ("File Streams (Local
// File Systems)", "FindFirstStreamW", Microsoft Learn).
// uid and gid stay empty; mode carries the file attributes.
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include <vector>

#include "harness/core/error.h"
#include "harness/core/sha256.h"
#include "harness/host/fs_snapshot.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

constexpr DWORD kShareAll = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

UniqueHandle open_for_stat(const std::wstring& path, DWORD access, bool follow) {
  const DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT);
  return UniqueHandle(::CreateFileW(path.c_str(), access, kShareAll, nullptr, OPEN_EXISTING, flags, nullptr));
}

std::string error_marker(const std::string& step) { return "!" + win::last_error_text(step); }

std::string file_digest(HANDLE h) {
  Sha256 sha;
  std::vector<char> buf(1u << 16);
  std::uint64_t left = kDigestLimit;
  while (left > 0) {
    DWORD n = 0;
    const DWORD want = static_cast<DWORD>(std::min<std::uint64_t>(left, buf.size()));
    if (!::ReadFile(h, buf.data(), want, &n, nullptr)) return error_marker("ReadFile");
    if (n == 0) break;
    sha.update(buf.data(), n);
    left -= n;
  }
  return sha.hex_digest();
}

std::string final_path_of(HANDLE h) {
  std::wstring buf(512, L'\0');
  for (int tries = 0; tries < 3; ++tries) {
    const DWORD n = ::GetFinalPathNameByHandleW(h, buf.data(), static_cast<DWORD>(buf.size()), FILE_NAME_NORMALIZED);
    if (n == 0) return error_marker("GetFinalPathNameByHandleW");
    if (n < buf.size()) return win::narrow(std::wstring_view(buf.data(), n));
    buf.resize(n + 1);  // n is the size needed, terminator included
  }
  return "!GetFinalPathNameByHandleW: path keeps growing";
}

// Owner, DACL (explicit and inherited ACEs) and mandatory label as SDDL; "!..." when unreadable.
std::string sddl_of(HANDLE h) {
  constexpr SECURITY_INFORMATION kWhat =
      OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION | LABEL_SECURITY_INFORMATION;
  PSECURITY_DESCRIPTOR sd = nullptr;
  if (const DWORD e = ::GetSecurityInfo(h, SE_FILE_OBJECT, kWhat, nullptr, nullptr, nullptr, nullptr, &sd);
      e != ERROR_SUCCESS) {
    ::SetLastError(e);
    return error_marker("GetSecurityInfo");
  }
  LPWSTR text = nullptr;
  ULONG len = 0;
  const BOOL ok = ::ConvertSecurityDescriptorToStringSecurityDescriptorW(sd, SDDL_REVISION_1, kWhat, &text, &len);
  ::LocalFree(sd);
  if (!ok) return error_marker("ConvertSecurityDescriptorToStringSecurityDescriptorW");
  std::string out = win::narrow(std::wstring_view(text));
  ::LocalFree(text);
  return out;
}

// FindFirstStreamW's handle is closed with FindClose, not CloseHandle.
struct StreamFind {
  HANDLE h;
  ~StreamFind() {
    if (h != INVALID_HANDLE_VALUE) ::FindClose(h);
  }
};

constexpr int kMaxStreams = 16;  // a file with more is listed that far, the rest counted

// "<name> <size> <digest>" per named stream, one per line; "" when there is only the default
// stream or the file system has none (FAT; Wine 8.0's stub says ERROR_HANDLE_EOF for every file).
std::string named_streams(const std::wstring& path) {
  WIN32_FIND_STREAM_DATA d{};
  StreamFind find{::FindFirstStreamW(path.c_str(), FindStreamInfoStandard, &d, 0)};
  if (find.h == INVALID_HANDLE_VALUE)
    return ::GetLastError() == ERROR_HANDLE_EOF ? std::string() : error_marker("FindFirstStreamW");
  std::string out;
  int listed = 0, more = 0;
  do {
    const std::wstring name = d.cStreamName;
    if (name == L"::$DATA") continue;  // the default stream: the file's digest already
    if (++listed > kMaxStreams) {
      ++more;
      continue;
    }
    UniqueHandle data = open_for_stat(path + name, GENERIC_READ, /*follow=*/false);
    out += win::narrow(name) + " " + std::to_string(d.StreamSize.QuadPart) + " " +
           (data ? file_digest(data.get()) : error_marker("CreateFileW (stream)")) + "\n";
  } while (::FindNextStreamW(find.h, &d));
  if (more > 0) out += "+" + std::to_string(more) + " more\n";
  return out;
}

}  // namespace

bool stat_path(const std::filesystem::path& p, FileState& out) {
  const std::wstring path = p.wstring();
  UniqueHandle h = open_for_stat(path, FILE_READ_ATTRIBUTES | READ_CONTROL, /*follow=*/false);
  if (!h) {
    const DWORD e = ::GetLastError();
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND) return false;
    win::throw_last_error("CreateFileW " + p.string(), e);
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(h.get(), &info)) win::throw_last_error("GetFileInformationByHandle " + p.string());
  out = FileState{};
  const DWORD attrs = info.dwFileAttributes;
  out.type = (attrs & FILE_ATTRIBUTE_REPARSE_POINT) ? 'l' : (attrs & FILE_ATTRIBUTE_DIRECTORY) ? 'd' : 'f';
  out.dev = info.dwVolumeSerialNumber;
  out.inode = (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  out.mode = attrs;
  out.size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  out.nlink = info.nNumberOfLinks;
  out.xattrs["sddl"] = sddl_of(h.get());
  if (out.type != 'l')
    if (std::string streams = named_streams(path); !streams.empty()) out.xattrs["streams"] = std::move(streams);
  if (out.type == 'f') {
    UniqueHandle data = open_for_stat(path, GENERIC_READ, /*follow=*/false);
    out.digest = data ? file_digest(data.get()) : error_marker("CreateFileW (read)");
  } else if (out.type == 'l') {
    UniqueHandle target = open_for_stat(path, FILE_READ_ATTRIBUTES, /*follow=*/true);
    out.digest = target ? final_path_of(target.get()) : error_marker("CreateFileW (through the reparse point)");
  }
  return true;
}

}  // namespace breakout
