// breakout-probe-fs-write (Windows): tries ONE file-system modification at a path it is given.
//
//   breakout-probe-fs-write --op OP --path P [--src S] [--form F [--link L] | --via wsl]
//
// The Windows twin of probes/fs-write.cc, same arguments and report. Paths are
// WTF-8 (harness/core/wtf8.h) and reach the wide *W functions unchanged.
// OP (each is a single Win32 call; the error reported is that call's):
//   create      CreateFileW(P, CREATE_NEW) and write "breakout\n"
//   append      CreateFileW(P, FILE_APPEND_DATA, OPEN_EXISTING) and write "breakout\n"
//   truncate    CreateFileW(P, TRUNCATE_EXISTING) (writes nothing)
//   rename-out  MoveFileExW(S, P, 0)   (needs --src; never replaces)
//   rename-in   MoveFileExW(P, S, 0)   (needs --src)
//   delete      DeleteFileW(P); RemoveDirectoryW(P) when P is a directory
//   mkdir       CreateDirectoryW(P)
//   hardlink    CreateHardLinkW(P, S)  (needs --src)
//   symlink     CreateSymbolicLinkW(P, S), unprivileged flag (needs --src; needs
//               Developer Mode or SeCreateSymbolicLinkPrivilege on Windows)
// chmod and mkfifo have no one-call Windows counterpart here: usage error (64).
// --form F spells P in a Windows path form first (harness/paths/win_spell.h; junctions,
// symlinks, hard links and the \RPC Control link are planted at L, a workspace path);
// a form that cannot apply here is reported "form_state":"unavailable" (probes/win/path_form.h).
// --via wsl (create, append): the write is done by a Linux process wsl.exe starts, outside this
// process's token, job and ACLs (probes/win/wsl_route.h); no WSL here is "route_state":"unavailable".
// Microsoft Learn: "CreateFileW", "MoveFileExW", "CreateHardLinkW", "CreateSymbolicLinkW".
//
// Result: ok=true when the call succeeded as seen from inside; otherwise errno (the
// closest POSIX value), errname, "win32_error" and "[win32] step: message (error N)".
// The verdict comes from the harness's snapshot of P, not from this.
// Exit: 0 ok, 1 failed attempt, 64 usage error. Only touches P (and S).
//
// Windows only (mingw-w64).
#include <string>

#include "probes/common/args.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"
#include "probes/win/path_form.h"
#include "probes/win/wsl_route.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-fs-write --op OP --path P [--src S] [--form F [--link L] | --via wsl]\n"
    "  OP: create append truncate rename-out rename-in delete mkdir hardlink symlink\n"
    "  --src is required by rename-out, rename-in, hardlink, symlink and refused otherwise\n";

constexpr char kPayload[] = "breakout\n";

// CreateFileW + optional write; reports the failing step.
void open_and_write(ProbeReport& r, const std::wstring& path, DWORD access, DWORD disposition, bool write_payload) {
  breakout::UniqueHandle h(::CreateFileW(path.c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                         nullptr, disposition, FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!h) return fail_win32(r, "CreateFileW", ::GetLastError());
  if (write_payload) {
    DWORD done = 0;
    const DWORD want = sizeof kPayload - 1;
    if (!::WriteFile(h.get(), kPayload, want, &done, nullptr)) return fail_win32(r, "WriteFile", ::GetLastError());
    if (done != want) return fail_win32(r, "WriteFile", ERROR_WRITE_FAULT);
  }
  if (!::CloseHandle(h.release())) return fail_win32(r, "CloseHandle", ::GetLastError());  // late errors count
  r.succeed();
}

// A one-call op: nonzero BOOL is success, else GetLastError names the failure.
void one(ProbeReport& r, const char* step, BOOL ok) {
  if (!ok) return fail_win32(r, step, ::GetLastError());
  r.succeed();
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"op", Args::kValue}, {"path", Args::kValue}, {"src", Args::kValue}, {"form", Args::kValue},
             {"link", Args::kValue}, {"via", Args::kValue}});
  const std::string op = args.require("op");
  const std::string path = args.require("path");
  static const char* const kOps[] = {"create", "append", "truncate", "rename-out", "rename-in",
                                     "delete", "mkdir",  "hardlink", "symlink"};
  bool known = false;
  for (const char* o : kOps) known = known || op == o;
  if (op == "chmod" || op == "mkfifo") args.usage_error("--op " + op + " has no Windows counterpart in this probe");
  if (!known) args.usage_error("unknown --op '" + op + "'");
  const bool needs_src = op == "rename-out" || op == "rename-in" || op == "hardlink" || op == "symlink";
  if (needs_src && !args.has("src")) args.usage_error("--op " + op + " needs --src");
  if (!needs_src && args.has("src")) args.usage_error("--op " + op + " does not take --src");
  const std::string src = args.get("src").value_or("");
  const std::string form = args.get("form").value_or("");
  if (!form.empty() && !breakout::winpath::is_spelling(form)) args.usage_error("unknown --form '" + form + "'");
  const std::string via = args.get("via").value_or("");
  if (!via.empty() && via != "wsl") args.usage_error("--via is wsl on Windows");
  if (!via.empty() && !wsl_route_takes(op)) args.usage_error("--via wsl takes create or append");
  if (!via.empty() && (!form.empty() || args.has("link"))) args.usage_error("--via wsl goes without --form and --link");

  ProbeReport r("fs-write");
  r.set("op", op);
  r.set("path", path);
  if (needs_src) r.set("src", src);

  if (!via.empty()) {
    try {
      (void)wide(path);
    } catch (const std::exception& e) {
      args.usage_error(std::string("path is not WTF-8: ") + e.what());
    }
    write_via_wsl(r, op, path);
    r.emit();
    return r.exit_code();
  }
  std::wstring p, s;
  FormAim aim(r, form, args.get("link").value_or(""));
  try {
    s = wide(src);
    if (!aim.spell(path, &p)) {
      r.emit();
      return r.exit_code();
    }
  } catch (const std::exception& e) {
    args.usage_error(std::string("path is not WTF-8: ") + e.what());
  }
  if (op == "create") {
    open_and_write(r, p, GENERIC_WRITE, CREATE_NEW, true);
  } else if (op == "append") {
    open_and_write(r, p, FILE_APPEND_DATA, OPEN_EXISTING, true);
  } else if (op == "truncate") {
    open_and_write(r, p, GENERIC_WRITE, TRUNCATE_EXISTING, false);
  } else if (op == "rename-out") {
    one(r, "MoveFileExW", ::MoveFileExW(s.c_str(), p.c_str(), 0));
  } else if (op == "rename-in") {
    one(r, "MoveFileExW", ::MoveFileExW(p.c_str(), s.c_str(), 0));
  } else if (op == "delete") {
    const DWORD attrs = ::GetFileAttributesW(p.c_str());
    if (attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY) != 0)
      one(r, "RemoveDirectoryW", ::RemoveDirectoryW(p.c_str()));
    else
      one(r, "DeleteFileW", ::DeleteFileW(p.c_str()));
  } else if (op == "mkdir") {
    one(r, "CreateDirectoryW", ::CreateDirectoryW(p.c_str(), nullptr));
  } else if (op == "hardlink") {
    one(r, "CreateHardLinkW", ::CreateHardLinkW(p.c_str(), s.c_str(), nullptr));
  } else {  // symlink
    one(r, "CreateSymbolicLinkW",
        ::CreateSymbolicLinkW(p.c_str(), s.c_str(), SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE) ? TRUE : FALSE);
  }
  aim.after_op();
  r.emit();
  return r.exit_code();
}
