// The env family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from env.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec EnvLeak{.probe = "env-dump", .targets = true,
    .decided_by = PolicyField::kEnvInherit, .expect = rules::env_leak};
inline constexpr ClassSpec EnvPinned{.probe = "env-dump", .targets = true,
    .decided_by = PolicyField::kEnvPinned, .expect = rules::env_override};

}  // namespace breakout::spec
