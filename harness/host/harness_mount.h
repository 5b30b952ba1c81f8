// A mount the harness makes inside an attempt's tree, removed again by its destructor.
//
//   HarnessMount::Made m = HarnessMount::tmpfs(tree / "sibling" / "run-user", 1 << 20);
//   HarnessMount::Made b = HarnessMount::bind_file(listener_socket, tree / "sibling" / "bind-alias.sock");
//   if (!m.mount) return Skip{*m.unavailable};   // not root, no tmpfs, Windows
//   ... use m.mount->path() ...                  // ~HarnessMount: umount2(MNT_DETACH), then rmdir/unlink
//
// Two kinds, one lifetime. A bounded tmpfs on a fresh directory: the stand-in for a host
// submount such as /run/user/$UID (nsjail: a read-only root remounted without
// MS_REC leaves every submount writable); nosuid, nodev, noexec, mode 0755 owned by the harness's
// euid, like the attempt tree around it. A bind mount of a file (a path socket) on a fresh empty
// file: the same inode under a second name, as a host that bind-mounts /run/docker.sock into
// another directory makes it (mount(2) MS_BIND). Platform code: host/posix/,
// host/win/ (unavailable).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace breakout {

class HarnessMount {
 public:
  struct Made {
    std::unique_ptr<HarnessMount> mount;     // null when this host cannot mount
    std::optional<std::string> unavailable;  // the reason then (errno named)
  };
  // Creates `dir` (which must not exist yet: a mount over an existing directory would hide what
  // the tree planted there; Error "bad-target") and mounts a tmpfs of at most `bytes` on it.
  // A mount the host refuses (EPERM without CAP_SYS_ADMIN, ENODEV) comes back as `unavailable`,
  // the directory removed again; any other failure throws.
  static Made tmpfs(const std::filesystem::path& dir, std::uint64_t bytes);
  // Creates `at` as an empty file (it must not exist yet: Error "bad-target") and bind-mounts
  // `source` (a file or socket, not a directory: Error "bad-target") on it. Refused as above
  // (EPERM, EACCES): `unavailable`, the file removed again; any other failure throws.
  static Made bind_file(const std::filesystem::path& source, const std::filesystem::path& at);
  ~HarnessMount();  // unmount() and remove the mount point; never throws
  HarnessMount(const HarnessMount&) = delete;
  HarnessMount& operator=(const HarnessMount&) = delete;

  const std::filesystem::path& path() const { return path_; }  // the mount point
  std::uint64_t bytes() const { return bytes_; }                // a tmpfs's bound; 0 for a bind
  // umount2(MNT_DETACH) (a sandbox's process still inside keeps its own reference until it is
  // killed), then rmdir (tmpfs) or unlink (bind) of the mount point the harness made.
  // Idempotent; returns the first failure, if any.
  std::optional<std::string> unmount() noexcept;

 private:
  enum class Point { kDirectory, kFile };
  HarnessMount(std::filesystem::path path, Point point, std::uint64_t bytes)
      : path_(std::move(path)), point_(point), bytes_(bytes) {}
  std::filesystem::path path_;
  Point point_;
  std::uint64_t bytes_;
  bool mounted_ = true;
};

// Whether `path` is the root of a mount here (statx STATX_ATTR_MOUNT_ROOT; else its device differs
// from its parent's). False when it does not exist.
bool is_mount_point(const std::filesystem::path& path);

// Evidence only, never written: what the host's own /run/user/<euid> is ("absent", "a directory
// on /run's file system", "a mount of its own (tmpfs)").
std::string host_run_user_state();

}  // namespace breakout
