// The sandbox's own setup: what a session's boot changed on the host, recorded and judged apart from the probe.
//
// Protocol v1 lets a driver change the host at boot (ACL grants, xattrs) if shutdown undoes it
// (docs/drivers.md). So the probe is judged on the change from after boot to after its exec,
// never on what boot did: a snapshot taken before boot would charge the driver's grant on the
// workspace's parent to every write attempt. What boot changed is this record:
// shown in each execution's evidence ("setup"), judged by the session-setup check (a change
// that widens what others may do outside the writable roots is an escape of its own), and,
// like every host change, it must be gone after shutdown (session-hygiene).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "harness/paths/attempt_tree.h"
#include "harness/model/policy.h"
#include "harness/host/access_change.h"
#include "harness/host/fs_snapshot.h"

namespace breakout {

struct SetupChange {
  FsChange change;
  AccessChange access;
  bool outside_writable_roots = false;
};

struct SetupRecord {
  std::vector<SetupChange> changes;
  // Outside the writable roots and widening: the session-setup check's escape.
  std::vector<const SetupChange*> widening() const;
  // {"changes": [...], "widening_outside_writable_roots": N}; bounded.
  nlohmann::json to_json() const;
};

SetupRecord record_setup(const Snapshot& before_boot, const Snapshot& after_boot, const AttemptTree& tree,
                         const ResolvedPolicy& policy);

// One line for a change: "modified  (xattr:system.posix_acl_access; widens: user:65534 gained w)".
std::string describe(const SetupChange& c);

}  // namespace breakout
