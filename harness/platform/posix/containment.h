// Internal to the POSIX platform layer: what a Containment is on POSIX (its cgroup and the nonce scan's bookkeeping).
//
// The box is a cgroup v2 directory of its own (cgroup.h) when one is writable, and always the
// /proc nonce scan (process_scan.h) as the fallback and second net. spawn.cc reads the cgroup's
// fds for the child and counts the starts; containment.cc kills and counts.
#pragma once

#include <atomic>
#include <memory>

#include "harness/platform/posix/cgroup.h"
#include "harness/platform/process.h"

namespace breakout {

struct Containment::Impl {
  // Boot ticks when the box was made: the nonce scan reads only processes started since.
  unsigned long long since = 0;
  // Starts into the box so far (counted by spawn.cc before each clone).
  std::atomic<long long> starts{0};
  // `starts` when kill_all last ended with a clean scan: the destructor scans again only
  // when something was started since.
  std::atomic<long long> starts_at_sweep{-1};
  std::unique_ptr<CgroupDir> cgroup;  // null: cgroup v2 unavailable, the nonce scan alone

  // For vfork_spawn::ChildPlan: -1 without a cgroup.
  int cgroup_procs_fd() const { return cgroup ? cgroup->procs_fd() : -1; }
  int cgroup_dir_fd() const { return cgroup ? cgroup->dir_fd() : -1; }
};

}  // namespace breakout
