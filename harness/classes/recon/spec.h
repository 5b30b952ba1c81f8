// The recon family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from recon.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::rules {

// The family's own expectation rules (the shared ones: model/expectation_rules.h).

// Recon: the one promise of a policy its outside view can check (policy.h: "a fresh empty
// netns is" network = none; expect_connect's abstract-socket rule for the same reason). Other
// modes promise nothing recon can check: the record is informational (skip, never pass).
inline Expectation expect_recon(const Policy& policy) {
  const std::string m = std::string("network = ") + to_string(policy.network);
  if (policy.network == NetworkMode::kNone)
    return {Expected::kDenied, m + ": the process must not share the host's network namespace"};
  return {Expected::kObserved, m + " promises nothing recon can check from outside: informational (skip, never pass)"};
}

inline Expectation recon(const RuleInput& in) { return expect_recon(in.policy); }

}  // namespace breakout::rules

namespace breakout::spec {

inline constexpr ClassSpec Recon{.probe = "recon", .expect = rules::recon};

}  // namespace breakout::spec
