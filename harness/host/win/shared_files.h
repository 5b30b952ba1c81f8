// Shared-location file host objects on Windows (class ipc-reach): a canary file where every user may write, and its workspace control.
//
//   "users-public-file"  <FOLDERID_Public>\breakout-<tag>.txt       (C:\Users\Public: every user's, CWE-276)
//   "programdata-file"   <FOLDERID_ProgramData>\breakout-<tag>.txt  (C:\ProgramData: machine-wide app data)
//   "everyone-dir-file"  <tree>\everyone-<tag>\breakout-<tag>.txt   (a directory outside the workspace whose
//                        DACL the harness gives an explicit Everyone full-control ACE)
//   "user-temp-file"     <GetTempPathW>\breakout-<tag>.txt          (the user's %TEMP%, CWE-377)
//   "workspace-file"     <workspace>\shared-<tag>.txt               (the control: the same file where writing is allowed)
// The twin of the POSIX SharedFile (host/posix/host_objects.cc: tmp-file, var-tmp-file). The probe
// gets "file:<path>" as {target}; the file holds a canary. The contents changed, the file removed
// or replaced, or "<path>.new" created decide; a read is allowed (not deny_read), so the canary in
// the output is evidence only. The destructor removes both files (and the everyone directory).
// Windows only.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "harness/host/host_objects.h"

namespace breakout {

// Bytes of the canary file read back after the run (it starts far shorter: any growth shows),
// and of "<path>.new" kept as evidence.
inline constexpr std::size_t kSharedReadLimit = 64 * 1024;
inline constexpr std::size_t kSharedNewKeep = 4096;

// Whether `name` is one of the objects above.
bool is_shared_file(const std::string& name);

std::unique_ptr<HostObject> make_shared_file(const std::string& name, const HostObjectSetup& setup);

// Why this host has no such location (the known folder or %TEMP% is missing, with the system's
// reason), else nullopt. The tree-relative objects are always available.
std::optional<std::string> shared_file_unavailable(const std::string& name);

}  // namespace breakout
