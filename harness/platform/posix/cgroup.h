// A box's own cgroup v2 directory, <cgroup2 mount>/breakout/<label>: join it, list it, empty it, remove it.
//
// cgroups(7), cgroup v2: a process joins by writing "0" (itself) to cgroup.procs, or is born
// inside with clone3(CLONE_INTO_CGROUP) on the directory's fd (clone(2)); every descendant
// stays inside until someone with write access to another cgroup.procs moves it.
//   std::unique_ptr<CgroupDir> cg = CgroupDir::create("attempt-17");  // null: no writable cgroup2
//   plan.cgroup_procs_fd = cg->procs_fd();  ...  cg->kill_all(deadline);  // ~CgroupDir rmdirs
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "harness/platform/posix/unique_fd.h"

namespace breakout {

class CgroupDir {
 public:
  // Makes <mount>/breakout/<label> (label sanitised); null when cgroup v2 is not mounted, not
  // writable, or its cgroup.procs cannot be opened: the box then has the nonce scan alone.
  static std::unique_ptr<CgroupDir> create(const std::string& label);
  // Waits (bounded, 2 s) for the kernel to count the cgroup empty, removes it, and the shared
  // parent too when this was the last box. Kills nothing: the owner empties it first.
  ~CgroupDir();
  CgroupDir(const CgroupDir&) = delete;
  CgroupDir& operator=(const CgroupDir&) = delete;

  const std::string& path() const { return path_; }
  // cgroup.procs, O_WRONLY: a child writes "0" to it between clone and execve (vfork_spawn.h).
  int procs_fd() const { return procs_fd_.get(); }
  // The directory (O_RDONLY), for clone3(CLONE_INTO_CGROUP); -1 when unopenable.
  int dir_fd() const { return dir_fd_.get(); }
  // The pids cgroup.procs lists now (empty when unreadable).
  std::vector<int> pids() const;
  // SIGKILLs everything in the cgroup (cgroup.kill, or pid by pid on kernels before 5.14) and
  // waits until it is empty or `deadline` passes; returns every pid it listed.
  std::set<int> kill_all(std::chrono::steady_clock::time_point deadline) const;

 private:
  CgroupDir(std::string path, UniqueFd procs_fd, UniqueFd dir_fd);
  std::string path_;
  UniqueFd procs_fd_;
  UniqueFd dir_fd_;
};

}  // namespace breakout
