// The fs_write family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from fs_write.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec FsWrite{.probe = "fs-write", .targets = true, .path_form = true,
    .witness = true, .fs = FsRule::kWrite, .decided_by = PolicyField::kWritable, .expect = rules::fs_path};
inline constexpr ClassSpec IoUringWrite{.probe = "io-uring", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .expect = rules::io_uring_write};
inline constexpr ClassSpec SyscallAbiWrite{.probe = "syscall-abi", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .params = "i386|x32", .expect = rules::abi_write};
// cwd-write: the cwd is handed over in the path form of `param` (classes/fs_write/fs_change.cc).
inline constexpr ClassSpec CwdWrite{.probe = "fs-write", .targets = true, .path_form = true,
    .decided_by = PolicyField::kExecCwd, .expect = rules::cwd_write};
inline constexpr ClassSpec ProtectedWrite{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kDenyWrite, .expect = rules::protected_path};
// A write into a harness-mounted tmpfs (classes/fs_write/submount.cc): a submount is judged by where it
// sits, so a root made read-only without MS_REC must not leave it writable.
inline constexpr ClassSpec SubmountWrite{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .expect = rules::submount_write};

}  // namespace breakout::spec
