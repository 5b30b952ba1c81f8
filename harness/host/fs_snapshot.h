// Host sensor for the file system: before/after snapshots of a host tree and their diff.
//
// A snapshot records, for every entry under a root (not following symlinks):
// type, dev+inode, mode, owner, size, a SHA-256 of the content (regular files,
// bounded), the link target (symlinks), every xattr including the POSIX ACL
// ones (system.posix_acl_access/default). Any difference is a change the host
// can see, whatever the probe claims.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace breakout {

struct FileState {
  char type = '?';          // 'f' file, 'd' dir, 'l' symlink, 'p' fifo, 's' socket, 'c'/'b' device
  std::uint64_t dev = 0, inode = 0;
  std::uint32_t mode = 0;   // permission bits + type bits as from lstat
  std::uint32_t uid = 0, gid = 0;
  std::uint64_t size = 0, nlink = 0;
  std::string digest;       // sha256 hex of the first `kDigestLimit` bytes (files), link target (symlinks)
  std::map<std::string, std::string> xattrs;  // name -> hex of the value (ACLs included)
  bool operator==(const FileState&) const = default;
};

// Keyed by path relative to the snapshot root ("" is the root itself).
using Snapshot = std::map<std::string, FileState>;

inline constexpr std::uint64_t kDigestLimit = 16u << 20;
inline constexpr std::size_t kMaxSnapshotEntries = 200000;  // a flood of files is itself evidence

// Walks `root` (lstat, no symlink following, stays on root's device). Paths in
// `exclude` (absolute) are recorded as a single entry, not descended into.
Snapshot take_snapshot(const std::filesystem::path& root,
                       const std::vector<std::filesystem::path>& exclude = {});

struct FsChange {
  std::string path;   // relative to the root
  std::string kind;   // "created", "removed", "modified"
  std::string detail; // which fields differ, e.g. "digest,size" or "xattr:system.posix_acl_access"
};

std::vector<FsChange> diff_snapshots(const Snapshot& before, const Snapshot& after);

// The fields named in a change's detail, in order ("mode,xattr:system.posix_acl_access").
std::vector<std::string> change_fields(const std::string& detail);

// The entry at `rel` (a snapshot key), or null when the snapshot has none.
const FileState* find_entry(const Snapshot& s, const std::string& rel);

// Stat one path into a FileState (used by take_snapshot; exposed for tests).
// Returns false when the path does not exist.
bool stat_path(const std::filesystem::path& p, FileState& out);

}  // namespace breakout
