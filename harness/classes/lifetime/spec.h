// The lifetime family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from lifetime.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec Lifetime{.probe = "spawn-escape",
    .fixed = Expected::kDenied, .why = "no process may outlive the spawn it belongs to"};
inline constexpr ClassSpec TimeoutKill{.probe = "hang", .timeout = TimeoutRule::kFinite,
    .fixed = Expected::kDenied, .why = "a timeout kills the whole process tree"};

}  // namespace breakout::spec
