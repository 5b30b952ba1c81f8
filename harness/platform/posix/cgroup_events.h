// Waiting for a cgroup v2 directory to empty: cgroup.events "populated 0", woken by the kernel's file-modified notification.
#pragma once

#include <chrono>
#include <string>

namespace breakout {

// Blocks until `cgroup_dir`/cgroup.events says "populated 0" (no live process in
// the cgroup or below it) or `deadline` passes; true when it emptied. False at
// once when cgroup.events cannot be read (then the caller polls as before).
bool wait_cgroup_unpopulated(const std::string& cgroup_dir, std::chrono::steady_clock::time_point deadline);

}  // namespace breakout
