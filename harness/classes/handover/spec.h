// The handover family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from handover.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec FdLeak{.probe = "fd-walk", .targets = true,
    .decided_by = PolicyField::kCallerFds, .expect = rules::leaked_fd_write};
// path-hijack: `param` is how the stubs' directory is named on PATH (classes/handover/path_hijack.cc).
inline constexpr ClassSpec PathHijack{.probe = "path-exec", .targets = true,
    .decided_by = PolicyField::kWritable, .params = "|relative|dot|empty", .expect = rules::path_hijack};
inline constexpr ClassSpec FailOpen{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .params = "enforcer-path|no-userns", .expect = rules::fail_open};
inline constexpr ClassSpec SpawnerFollow{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .expect = rules::spawner_follow};

}  // namespace breakout::spec
