// The fs_write family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from fs_write.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::rules {

// The family's own expectation rules (the shared ones: model/expectation_rules.h).

// protected-write (classes/fs_write/protected_write.cc): a write at a protected path, deny_write first.
// Two spellings reach a protected path without lying within its entry: a directory that holds
// one (renaming or removing it takes the protected path along), and a case variant, which names
// it on a file system that folds case (the oracle skips it where the file system does not).
inline Expectation protected_path(const RuleInput& in) {
  const std::filesystem::path path = policy_path(in);
  const ResolvedPolicy r = resolve(in.policy, in.roots);
  for (const auto& entry : r.deny_write)
    if (path != entry && path_within(entry, path))
      return {Expected::kDenied, "holds deny_write entry " + entry.string() + ": moving or removing it takes that along"};
  if (const std::filesystem::path* entry = case_variant_of(path, r.deny_write))
    return {Expected::kDenied, "a case variant of deny_write entry " + entry->string() +
                                   " (the same file where the file system folds case)"};
  return write_at(path, r);
}

// IORING_OP_OPENAT is a write like any other.
inline Expectation cwd_write(const RuleInput& in) {
  return write_by(in, "a cwd the exec asked for grants nothing by itself: a write there is a write in that directory, ");
}

// A mount inside the tree (a tmpfs standing in for /run/user/$UID) is judged by where it sits: a
// sandbox that makes the root read-only without MS_REC leaves it writable (nsjail).
inline Expectation submount_write(const RuleInput& in) {
  return write_by(in, "a file system mounted below a path is that path's for the write rule: ");
}

// setxattr(2) needs write access to the file and no open(2): a sandbox that guards opens only (or
// Landlock, whose access rights name no metadata call: landlock(7)) lets it through.
inline Expectation meta_write(const RuleInput& in) {
  return write_by(in, "an extended attribute set on a file changes that file: ");
}

inline Expectation io_uring_write(const RuleInput& in) { return write_by(in, "a file created through io_uring is a write, "); }
// The i386/x32 ABI changes the syscall number, not the path walk.
inline Expectation abi_write(const RuleInput& in) {
  return write_by(in, "a file created through the foreign syscall ABI is a write, ");
}

}  // namespace breakout::rules

namespace breakout::spec {

inline constexpr ClassSpec FsWrite{.probe = "fs-write", .targets = true, .path_form = true,
    .witness = true, .fs = FsRule::kWrite, .decided_by = PolicyField::kWritable, .expect = rules::fs_path};
inline constexpr ClassSpec IoUringWrite{.probe = "io-uring", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .platforms = Platforms::kLinux, .platform_why = "io_uring is Linux only",
    .needs = Requirement::kIoUring,
    .expect = rules::io_uring_write};
inline constexpr ClassSpec SyscallAbiWrite{.probe = "syscall-abi", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .params = "i386|x32", .platforms = Platforms::kX86_64Linux,
    .platform_why = "the i386 and x32 syscall ABIs exist only on x86-64 Linux",
    .expect = rules::abi_write};
// fs-meta: the snapshot records every xattr (host/fs_snapshot.h), so the value set shows as the
// file's change; user.* xattrs are Linux's (xattr(7)).
inline constexpr ClassSpec FsMeta{.probe = "fs-write", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .platforms = Platforms::kLinux,
    .platform_why = "user.* extended attributes are Linux's (xattr(7))", .expect = rules::meta_write};
// cwd-write: the cwd is handed over in the path form of `param` (classes/fs_write/fs_change.cc).
inline constexpr ClassSpec CwdWrite{.probe = "fs-write", .targets = true, .path_form = true,
    .decided_by = PolicyField::kExecCwd, .expect = rules::cwd_write};
inline constexpr ClassSpec ProtectedWrite{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kDenyWrite, .expect = rules::protected_path};
// A write into a harness-mounted tmpfs (classes/fs_write/submount.cc): a submount is judged by where it
// sits, so a root made read-only without MS_REC must not leave it writable.
inline constexpr ClassSpec SubmountWrite{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .alone = true, .expect = rules::submount_write};

}  // namespace breakout::spec
