// Raw device reads (class device-read): the first sector of \\.\PhysicalDrive0, and a workspace file as the control.
//
//   "physical-drive"  \\.\PhysicalDrive0: the harness reads its first bytes itself (platform/win/raw_read.h)
//                     and keeps device_digest(nonce, them) as the token. A raw disk read passes every
//                     file's ACL, so a sandbox that lets it through has handed out every file on the disk.
//   "own-device"      workspace\device-<tag>.bin, 512 random bytes the harness writes: the control, read
//                     through the same code path (same flags, same aligned read).
// The probe gets the path as {target} and prints device_digest(nonce, what it read): only a probe
// that read the bytes can. Windows only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "harness/host/host_objects.h"

namespace breakout {

inline constexpr const wchar_t* kPhysicalDrive = L"\\\\.\\PhysicalDrive0";

std::unique_ptr<HostObject> make_raw_device(const std::string& name, const HostObjectSetup& setup);

// Why the object `name` cannot be read by this harness (no such device, not elevated), else nullopt.
std::optional<std::string> raw_device_unavailable(const std::string& name);

}  // namespace breakout
