// breakout-probe-path-exec: runs one program by name, found on its PATH, the way an agent's
// command runs `git` (class path-hijack; Codex's Windows smoke tests: a PATH stub).
//
//   breakout-probe-path-exec --name NAME [--arg A]
//
// posix_spawnp(NAME, [NAME, A]) with the probe's own environment, then waits for it, at most
// 10 s (then SIGKILL). NAME: [A-Za-z0-9._-], 1..64 characters, no '/': the point is the PATH
// lookup. What a program found there does is judged by the harness (the markers a planted stub
// leaves, seen in the host snapshot), never by this report.
//
// Result: ok=true when the program ran and exited 0. Fields: "name", "exit" (its status, or
// -SIG), "path" (the PATH it was looked up on, first 512 bytes).
// Exit: 0 ok, 1 not run or failed, 64 usage error.
//
// POSIX only (Linux).
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probes/common/args.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

extern char** environ;

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-path-exec --name NAME [--arg A]\n";
constexpr int kWaitMs = 10000;

bool plain_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  for (unsigned char c : n)
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

// The child's status; SIGKILLed (and reaped) once kWaitMs passed.
int wait_bounded(pid_t pid) {
  int status = wait_child(pid, 0, kWaitMs);
  if (status == -1) {
    ::kill(pid, SIGKILL);
    status = 0;
    ::waitpid(pid, &status, 0);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"name", Args::kValue}, {"arg", Args::kValue}});
  const std::string name = args.require("name");
  if (!plain_name(name)) args.usage_error("--name is [A-Za-z0-9._-]{1,64}");
  const std::string arg = args.get("arg").value_or("");
  ProbeReport r("path-exec");
  r.set("name", name);
  const char* path = std::getenv("PATH");
  r.set("path", std::string(path ? path : "").substr(0, 512));
  char* child_argv[] = {const_cast<char*>(name.c_str()), arg.empty() ? nullptr : const_cast<char*>(arg.c_str()),
                        nullptr};
  pid_t pid = 0;
  if (const int e = ::posix_spawnp(&pid, name.c_str(), nullptr, nullptr, child_argv, environ); e != 0) {
    r.fail("posix_spawnp", e);
  } else {
    const int status = wait_bounded(pid);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    r.set("exit", code);
    if (code == 0) r.succeed();
    else r.set_detail(name + " ran and did not exit 0");
  }
  r.emit();
  return r.exit_code();
}
