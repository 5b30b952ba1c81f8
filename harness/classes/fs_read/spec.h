// The fs_read family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from fs_read.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec FsRead{.probe = "fs-read", .targets = true, .path_form = true,
    .fs = FsRule::kRead, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_path};

}  // namespace breakout::spec
