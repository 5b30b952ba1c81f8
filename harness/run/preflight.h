// Checks `breakout run` makes before the first attempt, so a configuration error is exit 2 at once
// instead of a run that fails attempt after attempt (or at the end).
//
//   check_probes_dir(paths.probes);                 // --probes: the directory exists
//   check_probes(paths.probes, plan);               // every probe the plan will start is there and runnable
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "harness/attempt/record.h"

namespace breakout {

// Throws Error("bad-probes", "--probes DIR: ...") when DIR is not a directory.
void check_probes_dir(const std::filesystem::path& dir);

// The probe names (without "breakout-probe-") the executions that will run need: each attempt's probe
// (none for the driver's own fs API), and the helpers the harness starts itself: `noop` for
// spawner-follow (its second exec) and `victim` for the ipc:victim host object. Planner skips need none.
std::set<std::string> probes_needed(const std::vector<Execution>& plan);

// The needed probes that are missing from `dir` or not executable there, one line each ("" when none).
std::string missing_probes(const std::filesystem::path& dir, const std::set<std::string>& needed);

// Throws Error("bad-probes", "--probes DIR: ...") naming every missing probe.
void check_probes(const std::filesystem::path& dir, const std::vector<Execution>& plan);

}  // namespace breakout
