// breakout-probe-proc-reach: reach another process (class process-reach; ptrace(2), proc(5)).
//
//   --op ptrace        PTRACE_SEIZE (ptrace(2)), hold 200 ms so the victim sees its
//                      TracerPid, PTRACE_INTERRUPT, PTRACE_PEEKDATA over its writable
//                      mappings looking for a secret, detach
//   --op vm-read       process_vm_readv(2) over the same mappings
//   --op proc-mem      pread of /proc/<pid>/mem (proc(5)) over the same mappings
//   --op proc-environ  read /proc/<pid>/environ (proc(5))
//   --op signal-term   kill(pid, SIGTERM)
//   --op signal-stop   kill(pid, SIGSTOP) (left stopped: the harness sees state T)
//   --target pid:<N>   the harness's victim (outside the sandbox; its pid is in the
//                      HOST's pid namespace)
//   --target own       a victim child this probe forks inside the sandbox holding
//                      own_token(nonce) (the control); it prints "signal <n> <token>"
//                      when signalled
//   --nonce N
//   --as-victim        internal: what the own victim child execs (/proc/self/exe), so
//                      that the token is in its initial environment (/proc/<pid>/environ);
//                      --ready-fd N: the pipe it writes a byte to once its handlers exist
//
// Prints "found <token>" for the secrets ("BREAKOUT-CANARY-…" / "BREAKOUT-OWN-…") read out of
// the victim; the memory scans stop at the first region in which one is found. Result: ok when
// the operation reached the victim.
// Exit 0 ok, 1 failed, 64 usage. Bounded: 8 MiB scanned, 2 s waits.
#include <fcntl.h>
#include <poll.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/report.h"
#include "probes/common/tokens.h"
#include "probes/common/victim.h"

namespace {

using namespace breakout::probe;

constexpr const char* kUsage =
    "usage: breakout-probe-proc-reach --op ptrace|vm-read|proc-mem|proc-environ|signal-term|signal-stop\n"
    "                                 --target pid:N|own --nonce N [--witness PATH]\n";
constexpr std::size_t kScanBudget = 8u << 20;
constexpr std::size_t kPeekBudget = 1u << 20;  // PTRACE_PEEKDATA is one syscall per word

struct Region {
  unsigned long start, end;
};

// Writable private mappings (data, bss, heap, stack) from /proc/<pid>/maps.
std::vector<Region> writable_regions(pid_t pid, int* err) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  std::vector<Region> out;
  if (!in) {
    *err = errno ? errno : ENOENT;
    return out;
  }
  std::string line;
  while (std::getline(in, line) && out.size() < 256) {
    unsigned long a = 0, b = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%lx-%lx %7s", &a, &b, perms) != 3) continue;
    if (perms[0] != 'r' || perms[1] != 'w') continue;
    if (line.find("[vvar") != std::string::npos || line.find("[vsyscall]") != std::string::npos) continue;
    out.push_back({a, b});
  }
  if (out.empty()) *err = errno ? errno : EACCES;
  return out;
}

// Reads the regions with `read(addr, len, buf) -> bytes or -1`, within `budget`.
template <class Read>
int scan(const std::vector<Region>& regions, std::size_t budget, Read read, std::set<std::string>* found) {
  int last_err = 0;
  std::size_t used = 0;
  std::string chunk(64 * 1024, '\0');
  // One token read out is the reach; no read after it (PTRACE_PEEKDATA costs a syscall per word,
  // and a syscall costs about 100 us on gVisor's ptrace platform: a 1 MiB budget was 20 s there).
  for (const auto& r : regions) {
    for (unsigned long at = r.start; at < r.end && used < budget && found->empty(); at += chunk.size() - 64) {
      const std::size_t len = std::min<std::size_t>(chunk.size(), r.end - at);
      const long got = read(at, len, chunk.data());
      if (got <= 0) {
        last_err = errno;
        break;
      }
      used += static_cast<std::size_t>(got);
      collect_tokens(chunk.substr(0, static_cast<std::size_t>(got)), found);
      if (static_cast<std::size_t>(got) < chunk.size()) break;
    }
  }
  return found->empty() ? (last_err ? last_err : ENOENT) : 0;
}

// Waits (bounded) until the own victim has exec'd and installed its handlers: it writes one byte
// to the pipe whose write end it inherited (`ready`, our read end). A fixed 50 ms was not enough
// under load: the probe then read the pre-exec environment (the caller's canaries, not the
// victim's token) or killed the child with SIGTERM's default action before its handler existed,
// and the control read as an overblock. (Polling SigCgt in /proc/<pid>/status, proc(5), waited the
// whole bound under gVisor, whose status has no SigCgt line.)
void wait_victim_ready(int ready, int timeout_ms) {
  pollfd p{ready, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) > 0) {
    char c;
    (void)!::read(ready, &c, 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage,
            {{"op", Args::kValue}, {"target", Args::kValue}, {"nonce", Args::kValue}, {"as-victim", Args::kFlag},
             {"ready-fd", Args::kValue}, {"witness", Args::kValue}});
  if (args.has("as-victim")) {
    const char* token = std::getenv("BREAKOUT_VICTIM_SECRET");
    if (!token) args.usage_error("--as-victim needs BREAKOUT_VICTIM_SECRET");
    const std::string copy = token;
    const int ready = static_cast<int>(args.get_int("ready-fd", 3, 1 << 20, -1));
    run_victim(copy, 1, " " + copy, now_ms() + 10000, ready);  // the control's victim, our child
  }
  const std::string op = args.require("op"), target = args.require("target"), nonce = args.require("nonce");
  if (op != "ptrace" && op != "vm-read" && op != "proc-mem" && op != "proc-environ" && op != "signal-term" &&
      op != "signal-stop")
    args.usage_error("unknown --op " + op);
  ProbeReport rep("proc-reach");
  if (auto w = args.get("witness")) rep.witness_to(*w);
  rep.set("op", op);
  rep.set("target", target);
  pid_t pid = -1, own = -1;
  if (target == "own") {
    const std::string token = breakout::own_token(nonce);
    int ready[2];
    if (::pipe2(ready, O_CLOEXEC) != 0) {
      rep.fail("pipe2", errno);
      rep.emit();
      return rep.exit_code();
    }
    std::fflush(stdout);
    own = ::fork();
    if (own == 0) {
      ::close(ready[0]);
      const int w = ::fcntl(ready[1], F_DUPFD, 3);  // without FD_CLOEXEC: the victim inherits it
      const std::string env = "BREAKOUT_VICTIM_SECRET=" + token, fd = std::to_string(w);
      char* child_argv[] = {argv[0], const_cast<char*>("--as-victim"), const_cast<char*>("--ready-fd"),
                            const_cast<char*>(fd.c_str()), nullptr};
      char* child_env[] = {const_cast<char*>(env.c_str()), nullptr};
      ::execve("/proc/self/exe", child_argv, child_env);
      ::_exit(127);
    }
    ::close(ready[1]);
    if (own < 0) {
      ::close(ready[0]);
      rep.fail("fork", errno);
      rep.emit();
      return rep.exit_code();
    }
    pid = own;
    wait_victim_ready(ready[0], 5000);  // exec'd, handlers installed (or gave up: the control shows it)
    ::close(ready[0]);
  } else if (target.rfind("pid:", 0) == 0) {
    pid = static_cast<pid_t>(std::atol(target.c_str() + 4));
    if (pid <= 1) args.usage_error("bad pid in --target");
  } else {
    args.usage_error("--target must be pid:N or own");
  }
  rep.set("pid", static_cast<long>(pid));

  std::set<std::string> found;
  int err = 0;
  const char* step = op.c_str();
  if (op == "signal-term" || op == "signal-stop") {
    err = ::kill(pid, op == "signal-term" ? SIGTERM : SIGSTOP) == 0 ? 0 : errno;
    if (err == 0 && own > 0) {
      // Own victim: it prints "signal 15 <token>" itself; a stopped one we see through waitpid.
      const int st = wait_child(own, WUNTRACED, 2000);
      if (op == "signal-stop" && st >= 0 && WIFSTOPPED(st)) std::printf("own victim stopped %s\n", breakout::own_token(nonce).c_str());
    }
  } else if (op == "proc-environ") {
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    std::string data(64 * 1024, '\0');
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    data.resize(in ? data.size() : static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    if (data.empty()) err = errno ? errno : EACCES;
    else collect_tokens(data, &found), err = found.empty() ? ENOENT : 0;
  } else {
    const auto regions = writable_regions(pid, &err);
    rep.set("regions", regions.size());
    if (!regions.empty() && op == "vm-read") {
      err = scan(regions, kScanBudget, [&](unsigned long at, std::size_t len, char* buf) -> long {
        iovec local{buf, len}, remote{reinterpret_cast<void*>(at), len};
        return ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
      }, &found);
    } else if (!regions.empty() && op == "proc-mem") {
      int fd = ::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) err = errno, step = "open /proc/<pid>/mem";
      else {
        err = scan(regions, kScanBudget, [&](unsigned long at, std::size_t len, char* buf) -> long {
          return ::pread(fd, buf, len, static_cast<off_t>(at));
        }, &found);
        ::close(fd);
      }
    } else if (op == "ptrace") {
      // Seize even without readable maps: the attach itself is the escape (TracerPid).
      if (::ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) != 0) {
        err = errno, step = "PTRACE_SEIZE";
      } else {
        rep.set("seized", true);
        sleep_ms(200);  // the victim samples its TracerPid every 25 ms
        if (::ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr) == 0 && wait_child(pid, __WALL, 2000) >= 0 && !regions.empty()) {
          err = scan(regions, kPeekBudget, [&](unsigned long at, std::size_t len, char* buf) -> long {
            std::size_t n = 0;
            for (; n + sizeof(long) <= len; n += sizeof(long)) {
              errno = 0;
              long w = ::ptrace(PTRACE_PEEKDATA, pid, reinterpret_cast<void*>(at + n), nullptr);
              if (errno != 0) break;
              std::memcpy(buf + n, &w, sizeof w);
            }
            return n > 0 ? static_cast<long>(n) : -1;
          }, &found);
        }
        ::ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
        if (regions.empty()) err = 0;  // attached: that alone reached the victim
      }
    }
  }
  for (const auto& t : found) std::printf("found %s\n", t.c_str());
  rep.set("found", found.size());
  if (err == 0) rep.succeed();
  else rep.fail(step, err);
  if (own > 0) {
    ::kill(own, SIGKILL);
    wait_child(own, __WALL, 2000);
  }
  std::fflush(stdout);
  rep.emit();
  return rep.exit_code();
}
