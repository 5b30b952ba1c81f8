// The contract family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from contract.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec ExitCode{.probe = "exit", .contract = true,
    .fixed = Expected::kHolds, .why = "execution contract"};
inline constexpr ClassSpec ExitSignal{.probe = "exit", .contract = true,
    .fixed = Expected::kHolds, .why = "execution contract"};
inline constexpr ClassSpec Cwd{.probe = "cwd", .contract = true,
    .fixed = Expected::kHolds, .why = "execution contract"};
inline constexpr ClassSpec OutputFlood{.probe = "pipe-flood", .contract = true,
    .fixed = Expected::kHolds, .why = "execution contract"};
inline constexpr ClassSpec NoTimeout{.probe = "sleep", .contract = true, .timeout = TimeoutRule::kNone,
    .fixed = Expected::kHolds, .why = "execution contract"};

}  // namespace breakout::spec
