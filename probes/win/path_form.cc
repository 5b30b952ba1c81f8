// FormAim: the facts a path form needs from the running system, and the links planted inside the workspace.
//
// Sources: Microsoft Learn "GetShortPathNameW", "GetVolumeNameForVolumeMountPointW",
// "QueryDosDeviceW", "FSCTL_SET_REPARSE_POINT", "REPARSE_DATA_BUFFER" (mount point layout),
// "CreateSymbolicLinkW", "CreateHardLinkW"; James Forshaw, symboliclink-testing-tools
// (CreateMountPoint, CreateSymlink: NtCreateSymbolicLinkObject under "\RPC Control").
#include "probes/win/path_form.h"

#include <winioctl.h>
#include <winternl.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <vector>

namespace breakout::probe {

namespace {

using winpath::Plant;

std::string narrow(const std::wstring& w) { return wtf8_from_utf16(std::u16string(w.begin(), w.end())); }

// A Win32 call that fills a wide buffer: "" when it fails.
template <class F>
std::wstring ask(F f) {
  std::vector<wchar_t> buf(32768);
  const DWORD n = f(buf.data(), static_cast<DWORD>(buf.size()));
  return n == 0 || n >= buf.size() ? std::wstring() : std::wstring(buf.data(), n);
}

// Errors that mean "this system cannot do it", not "refused": the form is unavailable here.
bool unsupported(DWORD e) {
  return e == ERROR_INVALID_FUNCTION || e == ERROR_NOT_SUPPORTED || e == ERROR_CALL_NOT_IMPLEMENTED ||
         e == ERROR_PRIVILEGE_NOT_HELD;  // symlinks without SeCreateSymbolicLinkPrivilege or Developer Mode
}

// The mount-point layout of REPARSE_DATA_BUFFER (ntifs.h, not in mingw's user headers).
struct MountPointHeader {
  DWORD tag;
  WORD data_length;
  WORD reserved;
  WORD substitute_offset;
  WORD substitute_length;
  WORD print_offset;
  WORD print_length;
};

// Makes `at` a junction to the NT path `nt_target` ("\??\C:\dir" or "\RPC Control").
DWORD make_junction(const std::wstring& at, const std::wstring& nt_target, const std::wstring& print) {
  if (!::CreateDirectoryW(at.c_str(), nullptr)) return ::GetLastError();
  UniqueHandle dir(::CreateFileW(at.c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING,
                                 FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!dir) return ::GetLastError();
  const std::size_t sub_bytes = nt_target.size() * sizeof(wchar_t), print_bytes = print.size() * sizeof(wchar_t);
  const std::size_t header_tail = sizeof(MountPointHeader) - offsetof(MountPointHeader, substitute_offset);
  std::vector<std::byte> buf(sizeof(MountPointHeader) + sub_bytes + print_bytes + 2 * sizeof(wchar_t));
  MountPointHeader h{};
  h.tag = IO_REPARSE_TAG_MOUNT_POINT;
  h.data_length = static_cast<WORD>(header_tail + sub_bytes + print_bytes + 2 * sizeof(wchar_t));
  h.substitute_length = static_cast<WORD>(sub_bytes);
  h.print_offset = static_cast<WORD>(sub_bytes + sizeof(wchar_t));
  h.print_length = static_cast<WORD>(print_bytes);
  std::memcpy(buf.data(), &h, sizeof h);
  std::memcpy(buf.data() + sizeof h, nt_target.data(), sub_bytes);  // each name NUL-terminated (zeroed buffer)
  std::memcpy(buf.data() + sizeof h + sub_bytes + sizeof(wchar_t), print.data(), print_bytes);
  DWORD returned = 0;
  if (!::DeviceIoControl(dir.get(), FSCTL_SET_REPARSE_POINT, buf.data(), static_cast<DWORD>(buf.size()), nullptr, 0,
                         &returned, nullptr))
    return ::GetLastError();
  return ERROR_SUCCESS;
}

// NtCreateSymbolicLinkObject through ntdll's export (no import library needed); winternl.h's
// UNICODE_STRING and OBJECT_ATTRIBUTES. Returns the NTSTATUS.
LONG make_object_link(const std::wstring& name, const std::wstring& target, UniqueHandle* out) {
  using Create = LONG(NTAPI*)(HANDLE*, ACCESS_MASK, OBJECT_ATTRIBUTES*, UNICODE_STRING*);
  const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  const auto create = reinterpret_cast<Create>(
      reinterpret_cast<void*>(::GetProcAddress(ntdll, "NtCreateSymbolicLinkObject")));
  if (create == nullptr) return static_cast<LONG>(0xC0000002L);  // STATUS_NOT_IMPLEMENTED
  std::wstring n = name, t = target;
  UNICODE_STRING un{static_cast<USHORT>(n.size() * 2), static_cast<USHORT>(n.size() * 2), n.data()};
  UNICODE_STRING ut{static_cast<USHORT>(t.size() * 2), static_cast<USHORT>(t.size() * 2), t.data()};
  OBJECT_ATTRIBUTES oa{};
  oa.Length = sizeof oa;
  oa.ObjectName = &un;
  oa.Attributes = 0x40;  // OBJ_CASE_INSENSITIVE
  HANDLE h = nullptr;
  const LONG status = create(&h, 0xF0001 /* SYMBOLIC_LINK_ALL_ACCESS */, &oa, &ut);
  if (status >= 0) out->reset(h);
  return status;
}

std::string hex(unsigned long v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08lX", v);
  return b;
}

}  // namespace

std::string wine_version() {
  using Version = const char*(CDECL*)();
  const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  const auto v = ntdll ? reinterpret_cast<Version>(reinterpret_cast<void*>(::GetProcAddress(ntdll, "wine_get_version")))
                       : nullptr;
  return v == nullptr ? "" : v();
}

FormAim::FormAim(ProbeReport& r, std::string form, std::string link)
    : r_(r), form_(std::move(form)), link_(std::move(link)) {
  if (!form_.empty()) r_.set("form", form_);
}

void FormAim::unavailable(const std::string& why) {
  r_.set("form_state", "unavailable");
  r_.set("form_reason", why);
}

bool FormAim::spell(const std::string& target, std::wstring* out) {
  if (form_.empty()) {  // no --form: the path exactly as the harness passed it
    *out = wide(target);
    return true;
  }
  winpath::SpellFacts facts;
  facts.cwd = narrow(ask([](wchar_t* b, DWORD n) { return ::GetCurrentDirectoryW(n, b); }));
  facts.link = link_;
  const std::size_t slash = link_.find_last_of("\\/");
  facts.object_name = slash == std::string::npos ? link_ : link_.substr(slash + 1);
  std::string unix_style = target;  // the harness may mix '/' in ("{workspace}/x")
  for (auto& c : unix_style)
    if (c == '/') c = '\\';
  const std::wstring wt = wide(unix_style);
  if (form_ == "short-name") {  // only the volume knows 8.3 aliases ([NAF] "Short vs. Long Names")
    const std::wstring parent = wt.substr(0, wt.find_last_of(L'\\'));
    facts.short_parent = narrow(ask([&](wchar_t* b, DWORD n) { return ::GetShortPathNameW(parent.c_str(), b, n); }));
  }
  if (form_ == "volume-guid" || form_ == "globalroot-device") {
    const std::wstring drive = wt.substr(0, 2);  // "C:"
    facts.volume_guid_root = narrow(ask([&](wchar_t* b, DWORD n) {
      return ::GetVolumeNameForVolumeMountPointW((drive + L"\\").c_str(), b, n) ? static_cast<DWORD>(wcslen(b)) : 0u;
    }));
    facts.nt_device = narrow(ask([&](wchar_t* b, DWORD n) {
      return ::QueryDosDeviceW(drive.c_str(), b, n) ? static_cast<DWORD>(wcslen(b)) : 0u;  // first of a multi-string
    }));
  }
  const winpath::Spelling s = winpath::spell(form_, unix_style, facts);
  if (!s.unavailable.empty()) {
    unavailable(s.unavailable);
    return false;
  }
  // Seen under Wine 8.0: no alternate data streams; "f::$DATA" and "f:name" become files named
  // so, which would look like a resolved form. Said before trying, so nothing is created.
  const std::string wine = wine_version();
  if (!wine.empty() && form_.rfind("ads-", 0) == 0) {
    unavailable("Wine " + wine + " has no alternate data streams (it takes '" + s.path.substr(
        s.path.find_last_of('\\') + 1) + "' for a file name)");
    return false;
  }
  r_.set("spelled", s.path);
  if (!plant(s)) return false;
  *out = wide(s.path);
  return true;
}

bool FormAim::plant(const winpath::Spelling& s) {
  if (s.plant == Plant::kNone) return true;
  const std::wstring at = wide(s.plant_at), to = wide(s.plant_to);
  DWORD e = ERROR_SUCCESS;
  std::string step;
  switch (s.plant) {
    case Plant::kJunction:
      step = "FSCTL_SET_REPARSE_POINT";
      e = make_junction(at, to, to.substr(4));  // the print name: the Win32 path without "\??\"
      break;
    case Plant::kDirSymlink:
    case Plant::kFileSymlink: {
      step = "CreateSymbolicLinkW";
      const DWORD flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE |
                          (s.plant == Plant::kDirSymlink ? SYMBOLIC_LINK_FLAG_DIRECTORY : 0);
      if (!::CreateSymbolicLinkW(at.c_str(), to.c_str(), flags)) e = ::GetLastError();
      break;
    }
    case Plant::kHardLink:
      step = "CreateHardLinkW";
      if (!::CreateHardLinkW(at.c_str(), to.c_str(), nullptr)) e = ::GetLastError();
      break;
    default: {  // kRpcControl: the object link first (its directory may not exist), then the junction to it
      const LONG status = make_object_link(wide(s.object_link), wide(s.object_target), &object_link_);
      if (status < 0) {
        const auto st = static_cast<unsigned long>(status);
        r_.fail("NtCreateSymbolicLinkObject", st == 0xC0000022UL ? EACCES : ENOSYS);
        r_.set_detail("NtCreateSymbolicLinkObject(" + s.object_link + "): NTSTATUS " + hex(st));
        // No "\RPC Control" directory (STATUS_OBJECT_PATH_NOT_FOUND) or no such call: this system cannot;
        // a refusal (STATUS_ACCESS_DENIED from a sandbox) is judged like any other.
        if (st == 0xC000003AUL || st == 0xC0000002UL || !wine_version().empty())
          unavailable("NtCreateSymbolicLinkObject(" + s.object_link + ") failed with NTSTATUS " + hex(st) +
                      (wine_version().empty() ? "" : " under Wine " + wine_version()));
        return false;
      }
      r_.set("object_link", s.object_link);
      step = "FSCTL_SET_REPARSE_POINT";
      e = make_junction(at, to, L"");
    }
  }
  // A link call that says yes but leaves nothing (Wine 8.0's CreateSymbolicLinkW is a stub that returns TRUE).
  if (e == ERROR_SUCCESS && ::GetFileAttributesW(at.c_str()) == INVALID_FILE_ATTRIBUTES) {
    r_.fail(step, ENOSYS);
    r_.set_detail(step + " reported success but " + s.plant_at + " does not exist");
    unavailable(step + " reported success but made nothing" +
                (wine_version().empty() ? std::string() : " (Wine " + wine_version() + ")"));
    return false;
  }
  if (e == ERROR_SUCCESS) {
    r_.set("planted", s.plant_at);
    return true;
  }
  fail_win32(r_, step, e);
  const std::string wine = wine_version();  // Wine enforces nothing: a failure there is a gap in Wine
  if (unsupported(e) || !wine.empty())
    unavailable(step + " is not available here" + (wine.empty() ? "" : " (Wine " + wine + ")") + ": error " +
                std::to_string(e));
  return false;
}

void FormAim::after_op() {
  if (r_.ok() || form_.empty() || form_ == "drive-absolute") return;
  const std::string wine = wine_version();
  if (!wine.empty())
    unavailable("Wine " + wine + " does not resolve this form: the operation failed with error " +
                std::to_string(last_failure));
}

}  // namespace breakout::probe
