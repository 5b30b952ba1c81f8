// HarnessMount on Linux: mount(2) of a bounded tmpfs or a file bind, umount2(MNT_DETACH) + removal in the destructor.
#include "harness/host/harness_mount.h"

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

// What the host's refusal of mount(2) means for the attempt: it cannot be tried here.
bool refused(int err) { return err == EPERM || err == EACCES || err == ENODEV; }

std::string unavailable_reason(const std::string& what, int err) {
  return std::string("the harness cannot mount ") + what + " here (" + errno_text("mount", err) +
         "; needs root with CAP_SYS_ADMIN in its mount namespace)";
}

}  // namespace

HarnessMount::Made HarnessMount::tmpfs(const fs::path& dir, std::uint64_t bytes) {
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
    if (refused(err)) return {nullptr, unavailable_reason("a tmpfs", err)};
    errno = err;
    throw_errno("mount tmpfs at " + dir.string());
  }
  return {std::unique_ptr<HarnessMount>(new HarnessMount(dir, Point::kDirectory, bytes)), std::nullopt};
}

HarnessMount::Made HarnessMount::bind_file(const fs::path& source, const fs::path& at) {
  struct stat st {};
  if (::stat(source.c_str(), &st) != 0) throw_errno("stat " + source.string());
  // A directory bind would need a directory mount point and could cover a whole subtree.
  if (S_ISDIR(st.st_mode)) throw Error("bad-target", "a harness file bind takes a file or socket, and " + source.string() + " is a directory");
  // O_EXCL: a bind over a file the tree planted (a canary) would hide it for the attempt.
  const int fd = ::open(at.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (errno == EEXIST)
      throw Error("bad-target", "a harness file bind goes on a file of its own, and " + at.string() + " exists");
    throw_errno("create " + at.string());
  }
  ::close(fd);
  // MS_BIND of one inode, not MS_REC: nothing below a file. The mount point is the harness's
  // fresh file; a sandbox that copies the host's mount tree (bwrap --ro-bind / /, which is
  // recursive) copies this mount with it.
  if (::mount(source.c_str(), at.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    const int err = errno;
    ::unlink(at.c_str());
    if (refused(err)) return {nullptr, unavailable_reason("a bind of " + source.filename().string(), err)};
    errno = err;
    throw_errno("bind-mount " + source.string() + " at " + at.string());
  }
  return {std::unique_ptr<HarnessMount>(new HarnessMount(at, Point::kFile, 0)), std::nullopt};
}

std::optional<std::string> HarnessMount::unmount() noexcept {
  std::optional<std::string> failed;
  if (mounted_) {
    // MNT_DETACH: a probe still inside (killed only after judging) cannot keep the mount busy.
    if (::umount2(path_.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) != 0 && errno != EINVAL && errno != ENOENT)
      failed = errno_text("umount2", errno);
    else
      mounted_ = false;
  }
  if (!mounted_) {
    const bool gone = point_ == Point::kDirectory ? ::rmdir(path_.c_str()) == 0 : ::unlink(path_.c_str()) == 0;
    if (!gone && errno != ENOENT && !failed) failed = errno_text(point_ == Point::kDirectory ? "rmdir" : "unlink", errno);
  }
  return failed;
}

HarnessMount::~HarnessMount() { (void)unmount(); }

bool is_mount_point(const fs::path& path) {
  struct statx sx {};
  if (::statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) != 0) return false;
  if (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
  struct stat self {}, parent {};
  if (::lstat(path.c_str(), &self) != 0 || ::lstat(path.parent_path().c_str(), &parent) != 0) return false;
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
