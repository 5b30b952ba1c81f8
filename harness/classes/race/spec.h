// The race family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from race.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::rules {

// The family's own expectation rules (the shared ones: model/expectation_rules.h).

// A deny-read mask protects the file, not its spelling: a rename of an ancestor moves the file
// (and a mount on it) to another name, and a read of it there is still the read the policy denies.
inline Expectation race_read(const RuleInput& in) {
  Expectation e = read_at(policy_path(in), resolve(in.policy, in.roots));
  e.why = "the file under a renamed ancestor is the same file, " + e.why;
  return e;
}

}  // namespace breakout::rules

namespace breakout::spec {

inline constexpr ClassSpec FsRace{.probe = "fs-race", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .expect = rules::race_write};
// A read of a deny-read path after its ancestor moved (classes/race/race_read.cc plants the canaries):
// judged at the path the harness planted it, whatever name the probe reads it through.
inline constexpr ClassSpec FsRaceRead{.probe = "fs-race", .targets = true,
    .decided_by = PolicyField::kDenyRead, .expect = rules::race_read};

}  // namespace breakout::spec
