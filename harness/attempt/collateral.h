// Escapes besides the attempted one: what any execution (a control, a contract, a deny of
// another kind) did outside, judged like the deny attempts judge it.
//
// A control is run to prove the probe works, but it runs in the same sandbox as the denies: a
// driver that leaks the workspace parent's directory fd lets ipc.fd-leak's workspace control
// create files at the tree root. So after every execution the host is read
// once more: a change outside the writable roots, or the attempt's nonce at a listener the
// policy denies, is an escape reported against that execution, whatever its role.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/attempt/observe.h"

namespace breakout {

struct Collateral {
  std::string summary;     // for the verdict reason
  nlohmann::json evidence; // what was found, bounded
};

// `before_exec` is the snapshot the probe is judged against (after boot); `seen` the class
// oracle's observation (its own look at the tree is reused where it made one).
std::optional<Collateral> collateral_escape(const Execution& ex, const AttemptTree& tree, const ResolvedPolicy& policy,
                                            const Snapshot& before_exec, const AttemptIo& io, const RunContext& ctx,
                                            const Observation& seen);

}  // namespace breakout
