// fs-write --via win-interop: cmd.exe, started through WSL's binfmt interop, writes the target (win_interop.h).
#include "probes/win_interop.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "probes/common/posix.h"

extern char** environ;

namespace breakout::probe {

namespace {

constexpr int kWaitMs = 20000;  // the interop server starts a Windows process: seconds at worst
constexpr const char* kEntries[] = {"WSLInterop", "WSLInterop-late"};  // the latter: newer WSL with systemd

void route_unavailable(ProbeReport& r, const std::string& why) {
  r.set("route_state", "unavailable");
  r.set("route_reason", why);
  r.fail("win-interop", ENOSYS);
  r.set_detail("route win-interop unavailable here: " + why);
}

// The enabled interop entry's path, or "" with `why` saying what is there instead.
std::string enabled_entry(std::string* why) {
  *why = "no WSLInterop entry under /proc/sys/fs/binfmt_misc: not WSL, or interop off";
  for (const char* name : kEntries) {
    const std::string path = std::string("/proc/sys/fs/binfmt_misc/") + name;
    std::ifstream in(path);
    std::string first;
    if (!in || !std::getline(in, first)) continue;
    if (first == "enabled") return path;
    *why = path + " says " + first.substr(0, 32);
  }
  return "";
}

std::vector<std::string> child_env(const std::string& path) {
  std::vector<std::string> env;
  std::string wslenv;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.rfind("WSLENV=", 0) == 0) wslenv = kv.substr(7);
    else if (kv.rfind("BREAKOUT_WIN_TARGET=", 0) != 0) env.push_back(kv);
  }
  env.push_back("BREAKOUT_WIN_TARGET=" + path);
  // /p: WSL translates the Linux path to its Windows spelling (Microsoft Learn, "WSLENV" flags).
  env.push_back("WSLENV=" + wslenv + (wslenv.empty() ? "" : ":") + "BREAKOUT_WIN_TARGET/p");
  return env;
}

}  // namespace

bool win_interop_takes(const std::string& op) { return op == "create" || op == "append"; }

void write_via_win_interop(ProbeReport& r, const std::string& op, const std::string& path) {
  r.set("route", "win-interop");
  r.set("cmd_exe", kInteropCmd);
  std::string why;
  const std::string entry = enabled_entry(&why);
  if (entry.empty()) return route_unavailable(r, why);
  r.set("interop_entry", entry);
  struct stat st {};
  if (::stat(kInteropCmd, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
    return route_unavailable(r, std::string("no ") + kInteropCmd + " (" + errno_name(errno) + ")");

  const std::string command = op == "create" ? "if exist %BREAKOUT_WIN_TARGET% exit /b 80 & echo breakout>%BREAKOUT_WIN_TARGET%"
                                             : "echo breakout>>%BREAKOUT_WIN_TARGET%";
  std::vector<std::string> args = {kInteropCmd, "/d", "/c", command};
  std::vector<std::string> env = child_env(path);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  for (int fd = 0; fd <= 2; ++fd)  // nothing of the spawner's pipes goes to the Windows side
    posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, kInteropCmd, &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    r.set("route_state", "failed");
    r.set("route_reason", std::string("posix_spawn(") + kInteropCmd + "): " + errno_name(rc));
    return r.fail("posix_spawn", rc);
  }
  r.set("route_state", "started");
  const int status = wait_child(pid, 0, kWaitMs);
  if (status == -1) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    r.set("route_reason", "cmd.exe did not finish within 20 s (killed)");
    return r.fail("win-interop", ETIMEDOUT);
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.set("exit_status", code);
  r.set("route_reason", std::string("cmd.exe /c exited ") + std::to_string(code));
  if (code == 0) r.succeed();
  else r.fail("win-interop", EIO);
}

}  // namespace breakout::probe
