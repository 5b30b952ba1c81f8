// Which way a metadata change moves what others may do with a path: the judge of a sandbox's setup.
//
// A driver may change the host at boot (protocol v1: ACL grants, xattrs) as long as shutdown
// undoes it; that is how ACL-based sandboxes work (AstrBot PR #9895: synthetic-SID ACEs on the work
// directory; Codex's Windows sandbox: deny ACEs outside the workspace). What boot changed
// outside the writable roots is judged on its own: a change that lets someone write, delete or
// re-permission a path widens the box (an escape of the setup class), one that only grants read
// or traverse, or only takes rights away, is shown and must still be undone at shutdown.
//
//   for (const auto& c : diff_snapshots(before, after))
//     AccessChange a = classify_access(find(before, c.path), find(after, c.path));
#pragma once

#include <string>

#include "harness/host/fs_snapshot.h"

namespace breakout {

enum class AccessMove {
  kNone,        // no permission moved: content, an unrelated xattr, an entry created or removed
  kNarrows,     // rights taken away only (a deny ACE added, a grant revoked, a mode bit cleared)
  kGrantsRead,  // read/list/execute/traverse given to someone who lacked it, nothing more
  kWidens,      // write, delete, append or re-permission given (or a deny of it removed), or a new owner
};
const char* to_string(AccessMove m);

struct AccessChange {
  AccessMove move = AccessMove::kNone;
  std::string why;  // "user:65534 gained w", "deny ACE for S-1-5-… removed", "owner 0 -> 1000"
};

// `before`/`after` null when the path did not exist on that side (created/removed: kNone).
// POSIX: the access ACL (system.posix_acl_access, acl(5) layout) and default ACL, or the mode
// bits where there is none; named and group entries are masked as the kernel masks them.
// Windows: the SDDL in xattrs["sddl"] (host/win/fs_stat.cc): allow and deny ACEs per SID.
AccessChange classify_access(const FileState* before, const FileState* after);

}  // namespace breakout
