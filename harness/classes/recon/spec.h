// The recon family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from recon.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec Recon{.probe = "recon", .expect = rules::recon};

}  // namespace breakout::spec
