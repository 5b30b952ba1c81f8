// Internal to the POSIX platform layer: starting a child for run_process, and for callers that own the child's stdio.
#pragma once

#include <optional>
#include <string>

#include "harness/platform/posix/vfork_spawn.h"
#include "harness/platform/process.h"

namespace breakout {

// Starts spec.argv (vfork_spawn: clone + execve) inside `box` (may be null) with
// in_fd/out_fd/err_fd as its fds 0/1/2 (the caller closes its copies afterwards): the cgroup
// joined before execve, clean signals, every other fd close-on-exec, spec.inherit_fds
// leaked. argv[0] without '/' is looked up on the PATH of spec.env, in the parent (the
// CLONE_VM child may not allocate). Returns the child, which the caller must reap, or nullopt
// with *error set (a child that failed before or at execve has been reaped).
std::optional<vfork_spawn::Child> start_child(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd,
                                              int err_fd, std::string* error);

// start_child for callers that wait with waitpid: returns the pid, or -1 with *error set.
int spawn_with_stdio(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd, int err_fd,
                     std::string* error);

}  // namespace breakout
