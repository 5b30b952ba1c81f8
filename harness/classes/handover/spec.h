// The handover family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from handover.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::rules {

// The family's own expectation rules (the shared ones: model/expectation_rules.h).

// The caller leaks an open directory fd for the target (class fd-leak, classes/fs_write/fs_change.cc):
// a write through it is judged exactly like any other write there.
inline Expectation leaked_fd_write(const RuleInput& in) {
  return write_by(in, "writing through a leaked directory fd is a write in that directory, ");
}

inline Expectation path_hijack(const RuleInput& in) {
  return write_by(in, "a program found on the caller's PATH writes with the rights of where it runs: ");
}

inline Expectation fail_open(const RuleInput& in) {
  return write_by(in, "an enforcer that cannot work is a reason to refuse, not to run unconfined: ");
}

// The spawner's own write through a link the sandbox planted lands at the link's target: the
// sandbox's reach, widened by a host process that trusts a path the sandbox could replace.
inline Expectation spawner_follow(const RuleInput& in) {
  return write_by(in, "a host-side write through a link the sandbox planted is a write at the link's target: ");
}

}  // namespace breakout::rules

namespace breakout::spec {

inline constexpr ClassSpec FdLeak{.probe = "fd-walk", .targets = true,
    .decided_by = PolicyField::kCallerFds, .expect = rules::leaked_fd_write};
// path-hijack: `param` is how the stubs' directory is named on PATH (classes/handover/path_hijack.cc).
inline constexpr ClassSpec PathHijack{.probe = "path-exec", .targets = true,
    .decided_by = PolicyField::kWritable, .params = "|relative|dot|empty", .expect = rules::path_hijack};
inline constexpr ClassSpec FailOpen{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .params = "enforcer-path|no-userns", .expect = rules::fail_open};
inline constexpr ClassSpec SpawnerFollow{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .helper_probe = "noop",
    .expect = rules::spawner_follow};

}  // namespace breakout::spec
