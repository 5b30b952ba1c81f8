// Pre-existing host metadata planted before a session boots, so lossy revocation shows in the snapshot diff.
//
// A spawner that grants access by editing ACLs and "revokes" by rebuilding or
// clearing them (AstrBot PR #9895 review, comment 6) leaves a host that differs only in
// entries that were there before it came. Only a path that already carries an
// extra ACL entry and an xattr makes that visible: this plants both.
#pragma once

#include <filesystem>
#include <string>

namespace breakout {

// Adds a named-user ACL entry (uid mark_uid(), r-x) to `path`'s access ACL and
// sets the xattr "user.breakout.mark" = `nonce`. Throws Error when the file
// system refuses (the caller skips or errors; it never pretends).
void plant_host_marks(const std::filesystem::path& path, const std::string& nonce);

// The uid of the planted entry: picked once per run at random from [1e9, 1e9 + 2^24), a range
// no distribution allocates (login.defs, subuid ranges start at 100000 and stay far below),
// and checked unused (getpwuid). Not `nobody` (65534): a Linux sandbox is most likely to grant
// exactly that uid, and a grant of the mark's own uid and perms would change nothing visible.
unsigned mark_uid();

}  // namespace breakout
