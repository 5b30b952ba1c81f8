// TmpfsMount on Linux: mount(2) of a bounded tmpfs, umount2(MNT_DETACH) + rmdir in the destructor.
#include "harness/oracle/tmpfs_mount.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "harness/core/error.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

std::string errno_text(const char* step, int err) { return std::string(step) + ": " + std::strerror(err); }

}  // namespace

TmpfsMount::Made TmpfsMount::make(const fs::path& dir, std::uint64_t bytes) {
  if (::mkdir(dir.c_str(), 0755) != 0) {
    if (errno == EEXIST)
      throw Error("bad-target", "a harness tmpfs goes on a directory of its own, and " + dir.string() + " exists");
    throw_errno("mkdir " + dir.string());
  }
  // nr_inodes bounds the entries as size bounds the bytes; the mode and owner are the tree's.
  const std::string options = "size=" + std::to_string(bytes) + ",nr_inodes=1024,mode=0755,uid=" +
                              std::to_string(::geteuid()) + ",gid=" + std::to_string(::getegid());
  if (::mount("breakout-submount", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options.c_str()) != 0) {
    const int err = errno;
    ::rmdir(dir.c_str());
    if (err == EPERM || err == EACCES || err == ENODEV)
      return {nullptr, "the harness cannot mount a tmpfs here (" + errno_text("mount", err) +
                           "; needs root with CAP_SYS_ADMIN in its mount namespace)"};
    errno = err;
    throw_errno("mount tmpfs at " + dir.string());
  }
  return {std::unique_ptr<TmpfsMount>(new TmpfsMount(dir, bytes)), std::nullopt};
}

std::optional<std::string> TmpfsMount::unmount() noexcept {
  std::optional<std::string> failed;
  if (mounted_) {
    // MNT_DETACH: a probe still inside (killed only after judging) cannot keep the mount busy.
    if (::umount2(dir_.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) != 0 && errno != EINVAL && errno != ENOENT)
      failed = errno_text("umount2", errno);
    else
      mounted_ = false;
  }
  if (!mounted_ && ::rmdir(dir_.c_str()) != 0 && errno != ENOENT && !failed) failed = errno_text("rmdir", errno);
  return failed;
}

TmpfsMount::~TmpfsMount() { (void)unmount(); }

bool is_mount_point(const fs::path& dir) {
  struct statx sx {};
  if (::statx(AT_FDCWD, dir.c_str(), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) != 0) return false;
  if (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
  struct stat self {}, parent {};
  if (::lstat(dir.c_str(), &self) != 0 || ::lstat(dir.parent_path().c_str(), &parent) != 0) return false;
  return self.st_dev != parent.st_dev;
}

std::string host_run_user_state() {
  const fs::path p = fs::path("/run/user") / std::to_string(::geteuid());
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return p.string() + ": absent (" + std::strerror(errno) + ")";
  if (!S_ISDIR(st.st_mode)) return p.string() + ": not a directory";
  if (!is_mount_point(p)) return p.string() + ": a directory on /run's file system, no mount of its own";
  struct statfs sf {};
  const bool tmpfs = ::statfs(p.c_str(), &sf) == 0 && sf.f_type == TMPFS_MAGIC;
  return p.string() + ": a mount of its own (" + (tmpfs ? "tmpfs" : "not tmpfs") + "), not written by breakout";
}

}  // namespace breakout
