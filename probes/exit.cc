// breakout-probe-exit: ends in a chosen way, to test that the spawner passes the
// probe's exit status through unchanged (exit-code and exit-signal contracts).
//
//   breakout-probe-exit --code N          exit(N), N in 0..255
//   breakout-probe-exit --signal SIG      die by signal SIG (name like TERM/SIGTERM, or number)
//
// Exactly one of the two. The report (ok=true, "code" or "signal" + "signame")
// is printed first. For --signal the handler is reset to default, the signal is
// unblocked and raised; core dumps are disabled first (no side effect). Signals
// that would stop rather than kill (STOP, TSTP, TTIN, TTOU) or whose default is
// to be ignored (CHLD, CONT, URG, WINCH) are refused (64): they cannot test the
// contract and a stopped probe would hang. If the process survives the signal
// anyway (something outside blocks it), it exits 125 after 1 s.
// Exit: N, or death by SIG; 64 usage error; 125 signal did not kill.
//
// Portable: Linux and Windows (mingw-w64; --signal is refused there).
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#ifndef _WIN32
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "probes/common/args.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-exit --code N | --signal NAME|NUM\n";

#ifndef _WIN32
struct SigName {
  int sig;
  const char* name;
};
constexpr SigName kSignals[] = {
    {SIGHUP, "HUP"},   {SIGINT, "INT"},   {SIGQUIT, "QUIT"}, {SIGILL, "ILL"},   {SIGTRAP, "TRAP"},
    {SIGABRT, "ABRT"}, {SIGBUS, "BUS"},   {SIGFPE, "FPE"},   {SIGKILL, "KILL"}, {SIGUSR1, "USR1"},
    {SIGSEGV, "SEGV"}, {SIGUSR2, "USR2"}, {SIGPIPE, "PIPE"}, {SIGALRM, "ALRM"}, {SIGTERM, "TERM"},
    {SIGXCPU, "XCPU"}, {SIGXFSZ, "XFSZ"}, {SIGSYS, "SYS"},   {SIGVTALRM, "VTALRM"}, {SIGPROF, "PROF"},
    {SIGIO, "IO"},     {SIGPWR, "PWR"},   {SIGSTKFLT, "STKFLT"},
    // Refused below, named here for the message:
    {SIGSTOP, "STOP"}, {SIGTSTP, "TSTP"}, {SIGTTIN, "TTIN"}, {SIGTTOU, "TTOU"},
    {SIGCHLD, "CHLD"}, {SIGCONT, "CONT"}, {SIGURG, "URG"},   {SIGWINCH, "WINCH"},
};

std::string sig_name(int sig) {
  for (const auto& s : kSignals)
    if (s.sig == sig) return std::string("SIG") + s.name;
  if (sig >= SIGRTMIN && sig <= SIGRTMAX) return "SIGRTMIN+" + std::to_string(sig - SIGRTMIN);
  return "SIG" + std::to_string(sig);
}

// NAME, SIGNAME or a number; 0 when unknown.
int parse_signal(std::string s) {
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos)
    return s.size() <= 2 && std::atoi(s.c_str()) <= SIGRTMAX ? std::atoi(s.c_str()) : 0;
  if (s.rfind("SIG", 0) == 0) s = s.substr(3);
  for (const auto& x : kSignals)
    if (s == x.name) return x.sig;
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"code", Args::kValue}, {"signal", Args::kValue}});
  if (args.has("code") == args.has("signal")) args.usage_error("give exactly one of --code, --signal");
  ProbeReport r("exit");
  r.succeed();
  if (args.has("code")) {
    const int code = static_cast<int>(args.require_int("code", 0, 255));
    r.set("code", code);
    r.emit();
    std::exit(code);
  }
#ifdef _WIN32
  args.usage_error("--signal is not supported on Windows");
#else
  const int sig = parse_signal(args.require("signal"));
  if (sig <= 0) args.usage_error("unknown signal '" + args.require("signal") + "'");
  if (sig > SIGSYS && sig < SIGRTMIN) args.usage_error("signal " + std::to_string(sig) + " is reserved by the C library");
  for (int bad : {SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGCHLD, SIGCONT, SIGURG, SIGWINCH})
    if (sig == bad) args.usage_error(sig_name(sig) + " does not terminate a process by default");
  r.set("signal", sig);
  r.set("signame", sig_name(sig));
  r.emit();

  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::prctl(PR_SET_DUMPABLE, 0);  // also stops piped core handlers (systemd-coredump, apport)
  struct sigaction sa{};
  sa.sa_handler = SIG_DFL;
  ::sigaction(sig, &sa, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::sleep(1);
  std::fprintf(stderr, "breakout-probe-exit: still alive after %s\n", sig_name(sig).c_str());
  return 125;
#endif
}
