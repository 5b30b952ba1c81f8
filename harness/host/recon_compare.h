// Class recon's comparison logic: the probe's word against the host's view, the host's view against the policy.
//
// Portable and pure (tests/unit/recon_compare_test.cc). The verdict comes from the outside
// view and the policy only; disagreements with the probe's report are shown, never judged.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/model/policy.h"
#include "harness/model/verdict.h"

namespace breakout {

// Every field both views carry (JSON pointers: "/ns/net", "/status/CapEff", "/integrity", ...),
// one row each: {"field", "inside", "outside", "agree"}. Inside values are hostile: bounded and
// made printable. Rows whose field is missing on one side are left out.
nlohmann::json side_by_side(const nlohmann::json& inside, const nlohmann::json& outside);

struct ReconFinding {
  Effect effect = Effect::kUnknown;            // kHappened: a promised confinement is missing
  std::optional<std::string> not_applicable;   // set when the policy promises nothing checkable here
  std::string summary;
  nlohmann::json checks = nlohmann::json::array();  // {"check", "promise", "outcome": held|missing|unchecked, "detail"}
};

// Judges the outside views (read_probe_processes) against what `network` promises, with `host`
// (read_own_process) as the host's side. Needs at least one view (the caller's in-run control).
// network = none: no view may share the host's network namespace; a platform without
// namespaces in its views (Windows) has nothing to check. Other modes: nothing checkable.
ReconFinding judge_recon(NetworkMode network, const nlohmann::json& views, const nlohmann::json& host);

}  // namespace breakout
