// The race family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from race.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec FsRace{.probe = "fs-race", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .expect = rules::race_write};
// A read of a deny-read path after its ancestor moved (classes/race/race_read.cc plants the canaries):
// judged at the path the harness planted it, whatever name the probe reads it through.
inline constexpr ClassSpec FsRaceRead{.probe = "fs-race", .targets = true,
    .decided_by = PolicyField::kDenyRead, .expect = rules::race_read};

}  // namespace breakout::spec
