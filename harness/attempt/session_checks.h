// Lifecycle checks of sandboxes with sessions (drivers): shutdown under load, refused boots, hygiene after shutdown, the boot's own setup.
//
// Seed 002 comments 3, 6 and 7: one job handle for concurrent execs (shutdown
// kills only the last), ACL revocation that drops pre-existing entries, and
// grants left behind when boot fails. Each check runs the real session and
// judges from outside: heartbeat files, and snapshots of the attempt tree
// (workspace parent, workspace, fake HOME, policy paths) taken before boot
// with a pre-existing ACL entry and xattr planted on every one of them.
#pragma once

#include "harness/attempt/observe.h"
#include "harness/attempt/record.h"
#include "harness/attempt/run_context.h"
#include "harness/attempt/tree.h"
#include "harness/spawner/spawner.h"

namespace breakout {

// Plants the pre-existing ACL entry and xattr (host_marks.h) on the tree's
// directories; call before the "before" snapshot.
void plant_session_marks(const AttemptTree& tree, const std::string& nonce);

// Runs the session check of ex's class and fills rec (verdict, reason, evidence).
void run_session_check(const Execution& ex, const RunContext& ctx, const AttemptTree& tree, const AttemptIo& io,
                       const Snapshot& before, const SpawnRequest& request, const LaunchSpec& limits,
                       Containment& box, AttemptRecord& rec);

}  // namespace breakout
