// breakout-probe-fd-walk: tries every fd it inherited beyond 0-2 (leaked descriptors;
// CVE-2024-21626), whoever leaked it: the caller, the spawner or a driver.
//
//   breakout-probe-fd-walk --name NAME [--nonce NONCE]
//
// Walks /proc/self/fd (bounded: the first 256 entries). For every fd >= 3:
//   directory  openat(fd, "breakout-fd-NAME", O_CREAT|O_EXCL|O_WRONLY) and a write, then
//              fchdir(fd) and open("breakout-fdcwd-NAME", ...) relative to it (the cwd is
//              restored afterwards)
//   file       (a regular file; only with --nonce) one line "breakout fd-walk TOKEN" appended
//              with pwrite at the file's end (the leaker's offset is left alone); an fd opened
//              read-only is first re-opened for append through /proc/self/fd/N, the way a
//              path-based check is sidestepped (Landlock selftests, proc_unlinked_file)
//   socket     (only with --nonce) a listening one is reported ("socket": "listening") and left
//              alone (accepting would take a connection from its owner); any other gets the
//              line once with send(MSG_NOSIGNAL|MSG_DONTWAIT), stream or datagram, connected or
//              not (an unconnected datagram socket answers EDESTADDRREQ: reported)
//   pipe       (only with --nonce) the line, written when the pipe takes it within 100 ms
//   other      listed (kind, path) and left alone
//              A write into another program's stream is judged where the harness owns the
//              reader: the harness leaks a FIFO whose read end it holds (harness/classes/handover/leaked_fd.cc)
// TOKEN = keyed_sha256_hex("breakout fd-walk", NONCE): the harness looks for it in the host
// file each fd names. It is not the nonce itself, which is on this probe's command line and so
// in any log a spawner keeps of it; only a write through the fd puts the token in a file.
// Before the walk it creates "breakout-cwd-NAME" in its cwd (field "cwd_write"): the control's
// evidence that the probe ran and could write where the policy allows, even when the sandbox
// closed every leaked fd (firejail does). A directory fd opened outside the sandbox keeps the
// mount it was opened on: a read-only bind mount over the same path inside does not apply to it
// (open(2), openat(2): the fd's own path and mount, not a new lookup from /).
// NAME: [A-Za-z0-9_-], 1..64 characters; NONCE: [A-Za-z0-9], 8..64.
//
// Result: ok=true when at least one write through an inherited fd went through, as seen from
// inside. Fields: "fds" (one object per fd: fd, kind, path from readlink, and per kind openat,
// fchdir, write or send: "ok" or an errno name), "dir_fds", "file_fds", "stream_fds" (sockets
// and pipes), "writes". The verdict comes
// from the harness's look at the host, never from this.
// Exit: 0 ok, 1 nothing written (or nothing inherited), 64 usage error.
//
// POSIX only (Linux).
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/core/sha256.h"
#include "probes/common/args.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-fd-walk --name NAME [--nonce NONCE]\n";
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

// Appends `line` to the regular file open at `fd` without moving its offset; a read-only fd is
// re-opened for append through its /proc/self/fd magic link first. "ok" or an errno name.
std::string append_through(int fd, const std::string& line, bool* reopened) {
  int wfd = fd;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return failed(errno);
  if ((flags & O_ACCMODE) == O_RDONLY) {
    wfd = ::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
    if (wfd < 0) return failed(errno);
    *reopened = true;
  }
  std::string result = "ok";
  struct stat st {};
  if (::fstat(wfd, &st) != 0) {
    result = failed(errno);
  } else {
    const ssize_t w = ::pwrite(wfd, line.data(), line.size(), st.st_size);
    if (w < 0) result = failed(errno);
    else if (static_cast<std::size_t>(w) != line.size()) result = failed(EIO);
  }
  if (wfd != fd) ::close(wfd);
  return result;
}

// The line into a socket someone leaked: "listening" sockets are only reported.
void try_socket(int fd, const std::string& line, JsonObject& o, bool* tried, bool* ok) {
  int listening = 0, type = 0;
  socklen_t len = sizeof listening;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening) {
    o.set("socket", "listening");
    return;
  }
  len = sizeof type;
  ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
  o.set("socket", type == SOCK_STREAM ? "stream" : type == SOCK_DGRAM ? "datagram" : type == SOCK_SEQPACKET ? "seqpacket" : "other");
  sockaddr_storage peer{};
  len = sizeof peer;
  o.set("connected", ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) == 0);
  *tried = true;
  const ssize_t w = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  const std::string result = w == static_cast<ssize_t>(line.size()) ? "ok" : failed(w < 0 ? errno : EIO);
  o.set("send", result);
  *ok = result == "ok";
}

// The line into a pipe, when it takes it within 100 ms (a full pipe is not waited on).
void try_pipe(int fd, const std::string& line, JsonObject& o, bool* ok) {
  pollfd p{fd, POLLOUT, 0};
  std::string result;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0 && (flags & O_ACCMODE) == O_RDONLY) result = "skipped (read end)";
  else if (::poll(&p, 1, 100) != 1 || !(p.revents & POLLOUT)) result = failed(EAGAIN);
  else if (const int e = write_all(fd, line.data(), line.size()); e != 0) result = failed(e);
  else result = "ok";
  o.set("write", result);
  *ok = result == "ok";
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

const char* kind_of(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "dir";
  if (S_ISREG(st.st_mode)) return "file";
  if (S_ISSOCK(st.st_mode)) return "socket";
  if (S_ISFIFO(st.st_mode)) return "pipe";
  return "other";
}

bool valid_word(const std::string& s, std::size_t lo, std::size_t hi, bool dash) {
  if (s.size() < lo || s.size() > hi) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || (dash && (c == '_' || c == '-')))) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"name", Args::kValue}, {"nonce", Args::kValue}});
  const std::string name = args.require("name");
  if (!valid_word(name, 1, 64, true)) args.usage_error("--name must be 1..64 characters of [A-Za-z0-9_-]");
  const std::optional<std::string> nonce = args.get("nonce");
  if (nonce && !valid_word(*nonce, 8, 64, false)) args.usage_error("--nonce must be 8..64 characters of [A-Za-z0-9]");
  const std::string line = nonce ? "breakout fd-walk " + breakout::keyed_sha256_hex("breakout fd-walk", *nonce) + "\n" : "";

  ::signal(SIGPIPE, SIG_IGN);  // a pipe whose reader is gone answers EPIPE instead of killing the walk
  ProbeReport r("fd-walk");
  r.set("cwd_write", create_at(AT_FDCWD, "breakout-cwd-" + name));
  g_last_errno = 0;
  const int cwd = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  JsonArray list;
  int dir_fds = 0, file_fds = 0, stream_fds = 0, written = 0;
  for (int fd : open_fds()) {
    struct stat st {};
    if (fd == cwd || ::fstat(fd, &st) != 0) continue;
    char link[4096];
    const ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), link, sizeof link - 1);
    JsonObject o;
    o.set("fd", fd);
    o.set("kind", kind_of(st));
    o.set("path", n > 0 ? std::string(link, static_cast<std::size_t>(n)) : std::string("?"));
    if (S_ISDIR(st.st_mode)) {
      ++dir_fds;
      const std::string via_openat = create_at(fd, "breakout-fd-" + name);
      o.set("openat", via_openat);
      std::string via_fchdir = "skipped (no cwd fd to return to)";
      if (cwd >= 0) {
        via_fchdir = ::fchdir(fd) == 0 ? create_at(AT_FDCWD, "breakout-fdcwd-" + name) : failed(errno);
        if (::fchdir(cwd) != 0) via_fchdir += " (cwd not restored)";
      }
      o.set("fchdir", via_fchdir);
      written += (via_openat == "ok") + (via_fchdir == "ok");
    } else if (S_ISREG(st.st_mode) && nonce) {
      ++file_fds;
      bool reopened = false;
      const std::string via_write = append_through(fd, line, &reopened);
      o.set("write", via_write);
      o.set("reopened", reopened);
      written += via_write == "ok";
    } else if (S_ISSOCK(st.st_mode) && nonce) {
      bool tried = false, ok = false;
      try_socket(fd, line, o, &tried, &ok);
      stream_fds += tried;
      written += ok;
    } else if (S_ISFIFO(st.st_mode) && nonce) {
      bool ok = false;
      try_pipe(fd, line, o, &ok);
      ++stream_fds;
      written += ok;
    }
    list.add_raw(o.str());
  }
  r.set_raw("fds", list.str());
  r.set("dir_fds", dir_fds);
  r.set("file_fds", file_fds);
  r.set("stream_fds", stream_fds);
  r.set("writes", written);
  if (written > 0) r.succeed();
  else r.fail(dir_fds + file_fds + stream_fds == 0 ? "walk (no inherited directory, file, socket or pipe fd)" : "write",
              dir_fds + file_fds + stream_fds == 0 ? EBADF : g_last_errno);
  r.emit();
  return r.exit_code();
}
