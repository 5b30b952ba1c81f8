// The session family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from session.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec SessionShutdown{.probe = "hang", .sessions = true,
    .fixed = Expected::kDenied,
    .why = "shutdown ends every process of every exec of the session, also of concurrent ones"};
inline constexpr ClassSpec BootFailure{.probe = "exit", .sessions = true,
    .fixed = Expected::kDenied,
    .why = "a refused boot leaves the host exactly as it was (files, modes, owners, xattrs, ACLs)"};
inline constexpr ClassSpec SessionHygiene{.probe = "spawn-escape", .sessions = true,
    .fixed = Expected::kDenied,
    .why = "after shutdown nothing is left: no process, and no change outside the workspace's contents"};
inline constexpr ClassSpec SessionSetup{.probe = "exit", .sessions = true,
    .fixed = Expected::kDenied,
    .why = "boot may narrow access or grant read/traverse outside the writable roots, never widen it (no write "
    "grant, no removed deny, no new owner there)"};

}  // namespace breakout::spec
