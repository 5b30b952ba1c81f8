// breakout-probe-fd-walk: writes through every directory fd it inherited (catalog §5, leaked descriptors).
//
//   breakout-probe-fd-walk --name NAME
//
// Walks /proc/self/fd (bounded: the first 256 entries). For every fd >= 3 that
// is a directory it tries, in order:
//   openat   openat(fd, "breakout-fd-NAME", O_CREAT|O_EXCL|O_WRONLY) and a write
//   fchdir   fchdir(fd), then open("breakout-fdcwd-NAME", O_CREAT|O_EXCL|O_WRONLY)
//            relative to it, and a write (the cwd is restored afterwards)
// Before the walk it creates "breakout-cwd-NAME" in its cwd (field "cwd_write"):
// the control's evidence that the probe ran and could write where the policy
// allows, even when the sandbox closed every leaked fd (firejail does).
// A directory fd opened outside the sandbox keeps the mount it was opened on:
// a read-only bind mount over the same path inside does not apply to it
// (open(2), openat(2): the fd's own path and mount, not a new lookup from /).
// NAME: [A-Za-z0-9_-], 1..64 characters.
//
// Result: ok=true when at least one write through a directory fd went through,
// as seen from inside.
// Fields: "fds" (one object per directory fd: fd, path from readlink, openat,
// fchdir: "ok" or an errno name), "dir_fds" (how many). The verdict comes from
// the harness's snapshot of the host, never from this.
// Exit: 0 ok, 1 nothing written (or no directory fd), 64 usage error.
//
// POSIX only (Linux).
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/common/args.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-fd-walk --name NAME\n";
constexpr int kMaxEntries = 256;
const char kLine[] = "breakout fd-leak\n";
int g_last_errno = 0;  // of the last failing step, for the report

std::string failed(int e) {
  g_last_errno = e;
  return errno_name(e);
}

// Creates `name` relative to `dirfd` (AT_FDCWD for the cwd) and writes a line; "ok" or an errno name.
std::string create_at(int dirfd, const std::string& name) {
  const int fd = ::openat(dirfd, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0) return failed(errno);
  const int e = write_all(fd, kLine, sizeof kLine - 1);
  ::close(fd);
  return e == 0 ? "ok" : failed(e);
}

std::vector<int> open_fds() {
  std::vector<int> fds;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return fds;
  const int own = ::dirfd(d);
  int seen = 0;
  while (dirent* e = ::readdir(d)) {
    if (++seen > kMaxEntries) break;
    char* end = nullptr;
    const long n = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || n < 3 || n == own) continue;
    fds.push_back(static_cast<int>(n));
  }
  ::closedir(d);
  return fds;
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"name", Args::kValue}});
  const std::string name = args.require("name");
  if (name.empty() || name.size() > 64) args.usage_error("--name must be 1..64 characters");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      args.usage_error("--name uses [A-Za-z0-9_-] only");

  ProbeReport r("fd-walk");
  r.set("cwd_write", create_at(AT_FDCWD, "breakout-cwd-" + name));
  g_last_errno = 0;
  const int cwd = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  JsonArray list;
  int dir_fds = 0, written = 0;
  for (int fd : open_fds()) {
    struct stat st {};
    if (fd == cwd || ::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    ++dir_fds;
    char link[4096];
    const std::string proc = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = ::readlink(proc.c_str(), link, sizeof link - 1);
    JsonObject o;
    o.set("fd", fd);
    o.set("path", n > 0 ? std::string(link, static_cast<std::size_t>(n)) : std::string("?"));
    const std::string via_openat = create_at(fd, "breakout-fd-" + name);
    o.set("openat", via_openat);
    std::string via_fchdir = "skipped (no cwd fd to return to)";
    if (cwd >= 0) {
      via_fchdir = ::fchdir(fd) == 0 ? create_at(AT_FDCWD, "breakout-fdcwd-" + name) : failed(errno);
      if (::fchdir(cwd) != 0) via_fchdir += " (cwd not restored)";
    }
    o.set("fchdir", via_fchdir);
    written += (via_openat == "ok") + (via_fchdir == "ok");
    list.add_raw(o.str());
  }
  r.set_raw("fds", list.str());
  r.set("dir_fds", dir_fds);
  r.set("writes", written);
  if (written > 0) r.succeed();
  else r.fail(dir_fds == 0 ? "walk (no inherited directory fd)" : "write", dir_fds == 0 ? EBADF : g_last_errno);
  r.emit();
  return r.exit_code();
}
