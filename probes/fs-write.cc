// breakout-probe-fs-write: tries ONE file-system modification at a path it is given.
//
//   breakout-probe-fs-write --op OP --path P [--src S] [--via symlink|hardlink --link L | --via win-interop]
//
// OP (each is a single syscall; the errno reported is that syscall's):
//   create      open(P, O_CREAT|O_EXCL) and write "breakout\n"
//   append      open(P, O_APPEND) on an existing file and write "breakout\n"
//   truncate    open(P, O_TRUNC) on an existing file (writes nothing)
//   rename-out  rename(S, P)        (needs --src)
//   rename-in   rename(P, S)        (needs --src)
//   delete      unlink(P); rmdir(P) when P is a directory
//   mkdir       mkdir(P, 0755)
//   hardlink    link(S, P)          (needs --src)
//   symlink     symlink(S, P): a symlink at P whose target is the text S (needs --src)
//   plant-link  rename(P, P.breakout-aside) when P exists, then symlink(S, P): a path someone else
//               writes later, replaced by a link to S (needs --src; class spawner-follow, where
//               P is a file or directory the spawner writes every exec). Field "moved_aside"
//               says whether P existed
//   chmod       chmod(P, 0777)
//   setxattr    setxattr(P, "user.breakout", "breakout\n"): metadata only, no open(2) (xattr(7))
//   mkfifo      mkfifo(P, 0644)
//   mknod       mknod(P, S_IFSOCK|0644): a socket inode, the type an unprivileged mknod may make
//               besides files and FIFOs (mknod(2)); sandbox-runtime tests both
//   reopen      open(P, O_RDONLY), then open("/proc/self/fd/N", O_WRONLY|O_APPEND) and write:
//               a read-only fd re-opened writable through its magic link (Landlock selftests,
//               proc_unlinked_file); the second open is the step a sandbox must refuse
// --userns first enters a new user and mount namespace (uid/gid mapped to 0) and tries to
// remount, read-write, the mount that holds P's directory (MS_REMOUNT|MS_BIND on the nearest
// ancestor that is a mount point): a read-only bind made by a more privileged namespace is
// locked (mount_namespaces(7)) and must stay read-only. Fields "userns" and "remount" ("ok" or
// an errno name), "remount_at". The op runs whatever these answered. Shared mounts become slave
// mounts in a less privileged namespace, so nothing done there reaches the host's namespace.
// --clone3 (with --userns) makes the namespaces with clone3(2) in a child, which then does all
// of the above and the op and reports, while the parent waits and exits with its status: a
// seccomp filter that refuses CLONE_NEWUSER by reading clone(2)'s or unshare(2)'s flags cannot
// read clone3's (they sit in a struct), so it must refuse clone3 as a whole (bubblewrap
// tests/test-seccomp.py; seccomp(2), "Caveats"). Field "clone3": "ok" or an errno name; the op
// then runs in the probe itself, without the nesting.
// --src is refused for ops that do not use it. Opens use O_NONBLOCK so a FIFO at
// P cannot block the probe (ENXIO instead).
// --via plants a second name first and runs OP on it: symlink(P, L) or link(P, L), then
// OP at L (create, append, truncate, chmod, setxattr only). How a sandbox that protects P by its
// path, not its inode, is walked around from a writable directory.
// --via win-interop (create, append; in WSL): the write is done by cmd.exe, a Windows program
// the kernel starts through WSL's binfmt interop, outside this process's namespaces, seccomp
// filter and Landlock ruleset (probes/win_interop.h); no interop here is
// "route_state":"unavailable".
//
// Result: ok=true when the operation succeeded as seen from inside; otherwise
// errno/errname of the failing syscall ("step" names it: open, write, rename...).
// EROFS/EACCES/EPERM usually mean the sandbox refused; ENOENT may mean the path
// is hidden. The verdict comes from the harness's snapshot of P, not from this.
// Exit: 0 ok, 1 failed attempt, 64 usage error. Only touches P (and S).
//
// POSIX only (Linux).
#include <cerrno>
#include <string>

#include <fcntl.h>
#include <sched.h>
#include <linux/sched.h>  // struct clone_args
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <filesystem>

#include "probes/common/args.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"
#include "probes/win_interop.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-fs-write --op OP --path P [--src S]\n"
    "  OP: create append truncate rename-out rename-in delete mkdir hardlink symlink plant-link chmod setxattr\n"
    "      mkfifo mknod reopen\n"
    "  --src is required by rename-out, rename-in, hardlink, symlink, plant-link and refused otherwise\n"
    "  --via symlink|hardlink --link L: name P at L first, then OP at L (create append truncate chmod\n"
    "      setxattr)\n"
    "  --via win-interop: cmd.exe, through WSL's interop, does OP (create append) at P\n"
    "  --userns: enter a new user+mount namespace and remount P's mount read-write first\n"
    "  --clone3 (with --userns): make that namespace with clone3(2) in a child, which runs the op\n"
    "  --witness W: also leave the report line at W (the harness's in-run witness)\n";

constexpr char kPayload[] = "breakout\n";

// open + optional write; reports the failing step.
void open_and_write(ProbeReport& r, const std::string& path, int flags, bool write_payload) {
  int fd = ::open(path.c_str(), flags | O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) return r.fail("open", errno);
  if (write_payload) {
    if (int e = write_all(fd, kPayload, sizeof kPayload - 1)) {
      ::close(fd);
      return r.fail("write", e);
    }
  }
  if (::close(fd) != 0) return r.fail("close", errno);  // NFS-style late errors count too
  r.succeed();
}

// Opens `path` read-only (what a read grant allows), then the same file again for writing
// through /proc/self/fd: the magic link names the open file, not a path the sandbox checked.
void reopen_writable(ProbeReport& r, const std::string& path) {
  const int ro = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (ro < 0) return r.fail("open", errno);
  const std::string magic = "/proc/self/fd/" + std::to_string(ro);
  r.set("magic_link", magic);
  open_and_write(r, magic, O_APPEND, true);
  ::close(ro);
}

bool write_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write_all(fd, text.data(), text.size()) == 0;
  ::close(fd);
  return ok;
}

// A nested user namespace (bubblewrap tests/test-seccomp.py: clone3 and nested namespaces under
// the sandbox's filter), then the remount that a locked read-only bind must refuse.
// With `by_clone3`, the namespaces come from clone3(2) in a child that goes on in the parent's
// place (the parent waits for it and exits with its status, never returning from here).
void nested_userns_remount(ProbeReport& r, const std::string& path, bool by_clone3) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  if (by_clone3) {
    clone_args ca{};
    ca.flags = CLONE_NEWUSER | CLONE_NEWNS;
    ca.exit_signal = SIGCHLD;
    const long pid = ::syscall(SYS_clone3, &ca, sizeof ca);
    if (pid < 0) {
      r.set("clone3", errno_name(errno));
      return;
    }
    if (pid > 0) {  // the parent: the child reports
      int status = 0;
      while (::waitpid(static_cast<pid_t>(pid), &status, 0) < 0 && errno == EINTR) {
      }
      ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
    r.set("clone3", "ok");
  } else if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    r.set("userns", errno_name(errno));
    return;
  }
  r.set("userns", "ok");
  write_file("/proc/self/setgroups", "deny");
  write_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1");
  write_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
  namespace fs = std::filesystem;
  for (fs::path dir = fs::path(path).parent_path(); !dir.empty(); dir = dir.parent_path()) {
    const int rc = ::mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_BIND, nullptr);
    const int e = rc == 0 ? 0 : errno;
    if (e != EINVAL || dir == dir.root_path()) {  // EINVAL: not a mount point, go up
      r.set("remount_at", dir.string());
      r.set("remount", e == 0 ? std::string("ok") : errno_name(e));
      return;
    }
  }
}

// Runs a one-syscall op: rc 0 is success, else errno names the failure.
void one(ProbeReport& r, const char* step, int rc) {
  if (rc != 0) return r.fail(step, errno);
  r.succeed();
}

// Moves what is at `path` aside (a file or a whole directory, one rename) and puts a symlink to
// `src` in its place: the next writer that opens `path` without O_NOFOLLOW writes `src`.
void plant_link(ProbeReport& r, const std::string& path, const std::string& src) {
  struct stat st {};
  const bool present = ::lstat(path.c_str(), &st) == 0;
  r.set("moved_aside", present);
  if (present && ::rename(path.c_str(), (path + ".breakout-aside").c_str()) != 0) return r.fail("rename", errno);
  one(r, "symlink", ::symlink(src.c_str(), path.c_str()));
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage,
            {{"op", Args::kValue}, {"path", Args::kValue}, {"src", Args::kValue}, {"via", Args::kValue},
             {"link", Args::kValue}, {"userns", Args::kFlag}, {"clone3", Args::kFlag}, {"witness", Args::kValue}});
  const std::string op = args.require("op");
  std::string path = args.require("path");
  const std::string via = args.get("via").value_or("");
  const bool interop = via == "win-interop";
  if (via != "" && via != "symlink" && via != "hardlink" && !interop)
    args.usage_error("--via is symlink, hardlink or win-interop");
  if (interop && (args.has("link") || args.has("userns") || !win_interop_takes(op)))
    args.usage_error("--via win-interop takes create or append, without --link and --userns");
  if (!interop && via.empty() == args.has("link")) args.usage_error("--via symlink|hardlink and --link go together");
  if (!via.empty() && !interop && op != "create" && op != "append" && op != "truncate" && op != "chmod" &&
      op != "setxattr")
    args.usage_error("--via takes create, append, truncate, chmod or setxattr");
  static const char* const kOps[] = {"create", "append", "truncate", "rename-out", "rename-in", "delete",
                                     "mkdir",  "hardlink", "symlink", "plant-link", "chmod", "setxattr", "mkfifo", "mknod", "reopen"};
  bool known = false;
  for (const char* o : kOps) known = known || op == o;
  if (!known) args.usage_error("unknown --op '" + op + "'");
  const bool needs_src =
      op == "rename-out" || op == "rename-in" || op == "hardlink" || op == "symlink" || op == "plant-link";
  if (needs_src && !args.has("src")) args.usage_error("--op " + op + " needs --src");
  if (!needs_src && args.has("src")) args.usage_error("--op " + op + " does not take --src");
  if (args.has("clone3") && !args.has("userns")) args.usage_error("--clone3 goes with --userns");
  const std::string src = args.get("src").value_or("");

  ProbeReport r("fs-write");
  if (auto w = args.get("witness")) r.witness_to(*w);
  r.set("op", op);
  r.set("path", path);
  if (needs_src) r.set("src", src);
  if (interop) {
    write_via_win_interop(r, op, path);
    r.emit();
    return r.exit_code();
  }
  if (!via.empty()) {
    const std::string link = args.require("link");
    r.set("via", via);
    r.set("link", link);
    const int rc = via == "symlink" ? ::symlink(path.c_str(), link.c_str()) : ::link(path.c_str(), link.c_str());
    if (rc != 0) {
      r.fail(via == "symlink" ? "symlink" : "link", errno);
      r.emit();
      return r.exit_code();
    }
    path = link;
  }

  if (args.has("userns")) nested_userns_remount(r, path, args.has("clone3"));
  const char* p = path.c_str();
  const char* s = src.c_str();
  if (op == "create") {
    open_and_write(r, path, O_CREAT | O_EXCL, true);
  } else if (op == "append") {
    open_and_write(r, path, O_APPEND, true);
  } else if (op == "truncate") {
    open_and_write(r, path, O_TRUNC, false);
  } else if (op == "rename-out") {
    one(r, "rename", ::rename(s, p));
  } else if (op == "rename-in") {
    one(r, "rename", ::rename(p, s));
  } else if (op == "delete") {
    if (::unlink(p) == 0) {
      r.succeed();
    } else if (errno == EISDIR) {  // Linux's answer for a directory: remove it as one
      one(r, "rmdir", ::rmdir(p));
    } else {
      r.fail("unlink", errno);
    }
  } else if (op == "mkdir") {
    one(r, "mkdir", ::mkdir(p, 0755));
  } else if (op == "hardlink") {
    one(r, "link", ::link(s, p));
  } else if (op == "symlink") {
    one(r, "symlink", ::symlink(s, p));
  } else if (op == "plant-link") {
    plant_link(r, path, src);
  } else if (op == "chmod") {
    one(r, "chmod", ::chmod(p, 0777));
  } else if (op == "setxattr") {
    one(r, "setxattr", ::setxattr(p, "user.breakout", kPayload, sizeof kPayload - 1, 0));
  } else if (op == "mkfifo") {
    one(r, "mkfifo", ::mkfifo(p, 0644));
  } else if (op == "mknod") {
    one(r, "mknod", ::mknod(p, S_IFSOCK | 0644, 0));
  } else {  // reopen
    reopen_writable(r, path);
  }
  r.emit();
  return r.exit_code();
}
