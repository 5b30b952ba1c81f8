// The real_home family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from real_home.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec RealHomeRead{.probe = "fs-read", .targets = true, .real_home = true,
    .real_host = true, .fs = FsRule::kRead, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_path};
inline constexpr ClassSpec RealHomeWrite{.probe = "fs-write", .targets = true, .real_home = true,
    .real_host = true, .fs = FsRule::kWrite, .decided_by = PolicyField::kWritable, .expect = rules::fs_path};

}  // namespace breakout::spec
