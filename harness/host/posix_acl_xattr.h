// The POSIX ACL xattr layout (system.posix_acl_access; include/uapi/linux/posix_acl_xattr.h, acl(5)):
// a little-endian u32 version, then {u16 tag, u16 perm, u32 id} entries sorted by tag, then id.
// Read by access_change (what a sandbox changed) and written by host_marks (what the harness plants).
#pragma once

#include <cstdint>

namespace breakout::posix_acl {

constexpr std::uint32_t kVersion = 2;
constexpr std::uint16_t kUserObj = 0x01, kUser = 0x02, kGroupObj = 0x04, kGroup = 0x08, kMask = 0x10, kOther = 0x20;
constexpr std::uint32_t kUndefinedId = 0xFFFFFFFFu;

}  // namespace breakout::posix_acl
