// Internal to the POSIX platform layer: the launcher run_process uses, for callers that own the child's stdio.
#pragma once

#include <string>

#include "harness/platform/process.h"

namespace breakout {

// Starts spec.argv (vfork_spawn: clone + execve) inside `box` (may be null) with in_fd/out_fd/err_fd
// as its fds 0/1/2, with the same child setup as run_process (cgroup joined
// before execve, clean signals, every other fd close-on-exec, spec.inherit_dirs
// leaked). Returns the pid, which the caller must reap, or -1 with *error set.
int spawn_with_stdio(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd, int err_fd,
                     std::string* error);

}  // namespace breakout
