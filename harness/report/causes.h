// Findings grouped by cause: executions with the same verdict, class and policy whose reasons
// say the same thing once their own names are taken out (their id, target and controls,
// numbers, nonces). Twelve errors from one failed control are one line with the count and ids.
//
//   for (const Cause& c : group_by_cause(findings)) out << c.ids.size() << " x " << c.signature;
#pragma once

#include <string>
#include <vector>

#include "harness/attempt/record.h"

namespace breakout {

struct Cause {
  std::string verdict, klass, policy;
  std::string signature;             // the reason with the execution's own names replaced
  std::vector<std::string> ids;      // in the order the findings came
  const AttemptRecord* first = nullptr;
};

// `reason` of `a` with what differs between executions of one cause replaced: a's id, group,
// target and controls by <self>/<group>/<target>/<control>, digit runs by N, hex runs of 8+ by H.
std::string reason_signature(const AttemptRecord& a);

// Causes in the order of their first finding.
std::vector<Cause> group_by_cause(const std::vector<const AttemptRecord*>& findings);

}  // namespace breakout
