// The env family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from env.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::rules {

// The family's own expectation rules (the shared ones: model/expectation_rules.h).

inline Expectation expect_env(const std::string& name, const EnvPolicy& env) {
  for (const auto& n : env.inherit)
    if (n == name) return {Expected::kAllowed, name + " is in env.inherit"};
  if (env.pinned.count(name)) return {Expected::kAllowed, name + " is pinned by the policy"};
  return {Expected::kDenied, name + " is neither inherited nor pinned"};
}

// The spawner's pinned variables (policy env.pinned, the driver's hello, what a
// baseline exec shows) must win over the caller, in any spelling (AstrBot PR #9895
// review, comment 5: caller env merged after the proxy poisoning).
inline Expectation expect_override(const std::string& form, const EnvPolicy& env) {
  if (form == "control") {
    for (const auto& n : env.inherit)
      if (n == kOverrideControlVar)
        return {Expected::kAllowed, std::string(kOverrideControlVar) + " is inherited and not pinned: the caller's value must arrive"};
    return {Expected::kDenied, std::string(kOverrideControlVar) + " is not in env.inherit"};
  }
  return {Expected::kDenied, "pinned variables hold against a caller override (" + form + ")"};
}

inline Expectation env_leak(const RuleInput& in) {
  return expect_env(aimed(in, TargetKind::kEnvVar, "a variable").value, in.policy.env);
}

inline Expectation env_override(const RuleInput& in) {
  return expect_override(aimed(in, TargetKind::kEnvOverride, "a pin: form").value, in.policy.env);
}

}  // namespace breakout::rules

namespace breakout::spec {

inline constexpr ClassSpec EnvLeak{.probe = "env-dump", .targets = true,
    .decided_by = PolicyField::kEnvInherit, .expect = rules::env_leak};
inline constexpr ClassSpec EnvPinned{.probe = "env-dump", .targets = true,
    .decided_by = PolicyField::kEnvPinned, .expect = rules::env_override};

}  // namespace breakout::spec
