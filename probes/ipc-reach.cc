// breakout-probe-ipc-reach: reach an IPC object or a shared-dir file (class ipc-reach; sysvipc(7), shm_overview(7)).
//
//   --target sysv-shm:<key>     shmget(2)+shmat(2): read the segment, write the nonce marker at 2048
//   --target sysv-msg:<key>     msgget(2): msgrcv(2) the harness's message, msgsnd(2) the marker
//   --target posix-shm:/<name>  shm_open(3) in /dev/shm: read, write the marker at 2048
//   --target file:<path>        read, append the marker, create <path>.new (host /tmp, /var/tmp,
//                               or the workspace file of the control)
//   --target own:sysv-shm|own:sysv-msg|own:posix-shm
//                               the control: create the object itself (IPC_PRIVATE, or
//                               /breakout-own-<tag>), store own_token(nonce), read it back, remove it
//   --nonce N
//
// Prints "found <token>" for each secret read ("BREAKOUT-CANARY-…", "BREAKOUT-OWN-…").
// Result ok when the object was reached (opened/attached). Exit 0 ok, 1 failed, 64 usage.
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/shm.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

namespace {

using namespace breakout::probe;

constexpr const char* kUsage =
    "usage: breakout-probe-ipc-reach --target sysv-shm:KEY|sysv-msg:KEY|posix-shm:/NAME|file:PATH|own:KIND --nonce N\n";
constexpr std::size_t kSeg = 4096;

void print_tokens(const char* data, std::size_t n) {
  const std::string s(data, strnlen(data, n));
  for (const char* prefix : {"BREAKOUT-CANARY-", breakout::kOwnTokenPrefix})
    for (std::size_t at = s.find(prefix); at != std::string::npos; at = s.find(prefix, at + 1))
      std::printf("found %s\n", s.substr(at, std::strlen(prefix) + 32).c_str());
}

struct Msg {
  long mtype;
  char text[256];
};

// Returns 0 or errno; *step names the failing call.
int sysv_shm(key_t key, bool own, const std::string& payload, const char** step) {
  *step = "shmget";
  int id = own ? ::shmget(IPC_PRIVATE, kSeg, IPC_CREAT | 0600) : ::shmget(key, 0, 0);
  if (id < 0) return errno;
  *step = "shmat";
  char* p = static_cast<char*>(::shmat(id, nullptr, 0));
  int err = p == reinterpret_cast<char*>(-1) ? errno : 0;
  if (!err) {
    if (own) std::memcpy(p, payload.c_str(), payload.size() + 1), ::shmdt(p), p = static_cast<char*>(::shmat(id, nullptr, 0));
    if (p != reinterpret_cast<char*>(-1)) {
      print_tokens(p, 2048);
      std::snprintf(p + 2048, 512, "%s", payload.c_str());
      ::shmdt(p);
    }
  }
  if (own) ::shmctl(id, IPC_RMID, nullptr);
  return err;
}

int sysv_msg(key_t key, bool own, const std::string& payload, const char** step) {
  *step = "msgget";
  int id = own ? ::msgget(IPC_PRIVATE, IPC_CREAT | 0600) : ::msgget(key, 0);
  if (id < 0) return errno;
  Msg m{};
  m.mtype = 1;
  int err = 0;
  if (own) {
    std::snprintf(m.text, sizeof m.text, "%s", payload.c_str());
    if (::msgsnd(id, &m, std::strlen(m.text) + 1, IPC_NOWAIT) != 0) err = errno, *step = "msgsnd";
  }
  Msg got{};
  if (!err) {
    ssize_t n = ::msgrcv(id, &got, sizeof got.text - 1, 0, IPC_NOWAIT | MSG_NOERROR);
    if (n < 0) err = errno, *step = "msgrcv";
    else print_tokens(got.text, static_cast<std::size_t>(n));
  }
  if (own) ::msgctl(id, IPC_RMID, nullptr);
  else {
    std::snprintf(m.text, sizeof m.text, "%s", payload.c_str());
    if (::msgsnd(id, &m, std::strlen(m.text) + 1, IPC_NOWAIT) != 0 && !err) err = errno, *step = "msgsnd";
  }
  return err;
}

int posix_shm(const std::string& name, bool own, const std::string& payload, const char** step) {
  *step = "shm_open";
  int fd = ::shm_open(name.c_str(), own ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
  if (fd < 0) return errno;
  int err = 0;
  if (own && ::ftruncate(fd, kSeg) != 0) err = errno, *step = "ftruncate";
  if (!err && own && ::pwrite(fd, payload.c_str(), payload.size() + 1, 0) < 0) err = errno, *step = "pwrite";
  char buf[2048] = {};
  if (!err) {
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n < 0) err = errno, *step = "pread";
    else print_tokens(buf, static_cast<std::size_t>(n));
  }
  if (!err && !own && ::pwrite(fd, payload.c_str(), payload.size(), 2048) < 0) err = errno, *step = "pwrite";
  ::close(fd);
  if (own) ::shm_unlink(name.c_str());
  return err;
}

int shared_file(const std::string& path, const std::string& payload, const char** step) {
  *step = "open";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd >= 0) {
    char buf[2048] = {};
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    if (n > 0) print_tokens(buf, static_cast<std::size_t>(n));
    ::close(fd);
  }
  *step = "open O_APPEND";
  fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno;
  int err = write_all(fd, (payload + "\n").c_str(), payload.size() + 1);
  ::close(fd);
  if (err) {
    *step = "write";
    return err;
  }
  *step = "create .new";
  fd = ::open((path + ".new").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return errno;
  ::close(fd);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"target", Args::kValue}, {"nonce", Args::kValue}});
  const std::string target = args.require("target"), nonce = args.require("nonce");
  const auto colon = target.find(':');
  if (colon == std::string::npos) args.usage_error("--target needs KIND:VALUE");
  const std::string kind = target.substr(0, colon), value = target.substr(colon + 1);
  const bool own = kind == "own";
  const std::string what = own ? value : kind;
  const std::string payload = own ? breakout::own_token(nonce) : "BREAKOUT-NONCE " + nonce;
  ProbeReport rep("ipc-reach");
  rep.set("target", target);
  const char* step = "";
  int err = 0;
  key_t key = 0;
  if (!own && (what == "sysv-shm" || what == "sysv-msg")) {
    char* end = nullptr;
    key = static_cast<key_t>(std::strtol(value.c_str(), &end, 10));
    if (value.empty() || *end != '\0') args.usage_error("bad SysV key in --target " + target);
  }
  if (what == "sysv-shm") err = sysv_shm(key, own, payload, &step);
  else if (what == "sysv-msg") err = sysv_msg(key, own, payload, &step);
  else if (what == "posix-shm") err = posix_shm(own ? "/breakout-own-" + nonce.substr(0, 8) : value, own, payload, &step);
  else if (what == "file" && !own) err = shared_file(value, payload, &step);
  else args.usage_error("unknown target kind '" + target + "'");
  if (err) rep.fail(step, err);
  else rep.succeed();
  std::fflush(stdout);
  rep.emit();
  return rep.exit_code();
}
