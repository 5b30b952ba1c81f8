// Pre-existing host metadata planted before a session boots, so lossy revocation shows in the snapshot diff.
//
// A spawner that grants access by editing ACLs and "revokes" by rebuilding or
// clearing them (seed 002 comment 6) leaves a host that differs only in
// entries that were there before it came. Only a path that already carries an
// extra ACL entry and an xattr makes that visible: this plants both.
#pragma once

#include <filesystem>
#include <string>

namespace breakout {

// Adds a named-user ACL entry (uid kMarkUid, r-x) to `path`'s access ACL and
// sets the xattr "user.breakout.mark" = `nonce`. Throws Error when the file
// system refuses (the caller skips or errors; it never pretends).
void plant_host_marks(const std::filesystem::path& path, const std::string& nonce);

inline constexpr unsigned kMarkUid = 65534;  // nobody: a real, harmless user

}  // namespace breakout
