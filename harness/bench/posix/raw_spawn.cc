// The raw spawn floor on POSIX: posix_spawn + waitpid, stdio on /dev/null (no harness in the way).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/bench/spawn_probe.h"
#include "harness/core/error.h"

namespace breakout::bench {

namespace {

// RAII for the posix_spawn attribute objects.
struct FileActions {
  posix_spawn_file_actions_t fa;
  FileActions() { check(::posix_spawn_file_actions_init(&fa) == 0, "posix_spawn_file_actions_init"); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&fa); }
};

}  // namespace

SpawnSample RawTarget::spawn_once() {
  std::vector<char*> argv, envp;
  for (auto& a : argv_) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_) envp.push_back(e.data());
  envp.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  FileActions fa;
  for (int fd : {0, 1, 2})
    check(::posix_spawn_file_actions_addopen(&fa.fa, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) == 0,
          "posix_spawn_file_actions_addopen");
  // glibc >= 2.29 (Debian 12 has 2.36): chdir in the child, like run_process does.
  if (!cwd_.empty())
    check(::posix_spawn_file_actions_addchdir_np(&fa.fa, cwd_.c_str()) == 0, "posix_spawn_file_actions_addchdir_np");
  pid_t pid = -1;
  // posix_spawn returns the error (execve's included, glibc reports it through CLONE_VFORK).
  const int rc = ::posix_spawn(&pid, argv[0], &fa.fa, nullptr, argv.data(), envp.data());
  if (rc != 0) throw Error("raw spawn of " + argv_[0] + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw_errno("raw spawn: waitpid");
  SpawnSample s;
  s.wall = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
  check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "raw spawn of " + argv_[0] + ": the probe did not exit 0 (status " + std::to_string(status) + ")");
  return s;
}

}  // namespace breakout::bench
