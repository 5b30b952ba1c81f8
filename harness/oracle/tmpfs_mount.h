// A small tmpfs the harness mounts inside an attempt's tree, removed again by its destructor.
//
//   TmpfsMount::Made m = TmpfsMount::make(tree / "sibling" / "run-user", 1 << 20);
//   if (!m.mount) return Skip{*m.unavailable};   // not root, no tmpfs, Windows
//   ... snapshot m.mount->dir() ...              // ~TmpfsMount: umount2(MNT_DETACH), then rmdir
//
// The stand-in for a host submount such as /run/user/$UID (issue 21 item 9, nsjail): a sandbox
// that makes the root read-only with a remount that is not recursive leaves every submount
// writable. Bounded (size and inodes), nosuid, nodev, noexec, mode 0755 owned by the harness's
// euid, like the attempt tree around it. Platform code: oracle/posix/, oracle/win/ (unavailable).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace breakout {

class TmpfsMount {
 public:
  struct Made {
    std::unique_ptr<TmpfsMount> mount;       // null when this host cannot mount
    std::optional<std::string> unavailable;  // the reason then (errno named)
  };
  // Creates `dir` (which must not exist yet: a mount over an existing directory would hide what
  // the tree planted there; Error "bad-target") and mounts a tmpfs of at most `bytes` on it.
  // A mount the host refuses (EPERM without CAP_SYS_ADMIN, ENODEV) comes back as `unavailable`,
  // the directory removed again; any other failure throws.
  static Made make(const std::filesystem::path& dir, std::uint64_t bytes);
  ~TmpfsMount();  // unmount() and remove the directory; never throws
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::uint64_t bytes() const { return bytes_; }
  // umount2(MNT_DETACH) (a sandbox's process still inside keeps its own reference until it is
  // killed), then rmdir of the empty mount point. Idempotent; returns the first failure, if any.
  std::optional<std::string> unmount() noexcept;

 private:
  TmpfsMount(std::filesystem::path dir, std::uint64_t bytes) : dir_(std::move(dir)), bytes_(bytes) {}
  std::filesystem::path dir_;
  std::uint64_t bytes_;
  bool mounted_ = true;
};

// Whether `dir` is the root of a mount here (statx STATX_ATTR_MOUNT_ROOT; else its device differs
// from its parent's). False when it does not exist.
bool is_mount_point(const std::filesystem::path& dir);

// Evidence only, never written: what the host's own /run/user/<euid> is ("absent", "a directory
// on /run's file system", "a mount of its own (tmpfs)").
std::string host_run_user_state();

}  // namespace breakout
