// POSIX stat_path: lstat, bounded SHA-256 of regular files, symlink targets, every xattr (ACLs included).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "harness/core/error.h"
#include "harness/core/sha256.h"
#include "harness/host/fs_snapshot.h"

namespace breakout {

namespace {

std::string hex(const char* data, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<unsigned char>(data[i]);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// Unreadable content is recorded in the digest field, so "became unreadable"
// and "became readable" are changes too, instead of aborting the snapshot.
std::string error_marker(const char* step) { return std::string("!") + step + ": " + std::strerror(errno); }

std::string file_digest(const char* path, const struct stat& expect) {
  // O_NOFOLLOW: a symlink swapped in after lstat is not followed. O_NONBLOCK: a
  // fifo swapped in does not block us. fstat: it is still the file we lstat'ed.
  const int fd = ::open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return error_marker("open");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != expect.st_ino || st.st_dev != expect.st_dev) {
    ::close(fd);
    return "!changed during snapshot";
  }
  Sha256 sha;
  std::vector<char> buf(1u << 16);
  std::uint64_t left = kDigestLimit;
  while (left > 0) {
    const ssize_t n = ::read(fd, buf.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, buf.size())));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string marker = error_marker("read");
      ::close(fd);
      return marker;
    }
    if (n == 0) break;
    sha.update(buf.data(), static_cast<std::size_t>(n));
    left -= static_cast<std::uint64_t>(n);
  }
  ::close(fd);
  return sha.hex_digest();
}

std::string link_target(const char* path, const struct stat& st) {
  std::vector<char> buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
  for (int tries = 0; tries < 4; ++tries) {
    const ssize_t n = ::readlink(path, buf.data(), buf.size());
    if (n < 0) return error_marker("readlink");
    if (static_cast<std::size_t>(n) < buf.size()) return std::string(buf.data(), static_cast<std::size_t>(n));
    buf.resize(buf.size() * 2);  // grew since lstat
  }
  return "!readlink: target keeps growing";
}

void read_xattrs(const char* path, std::map<std::string, std::string>& out) {
  std::vector<char> names;
  ssize_t len = -1;
  for (int tries = 0; tries < 4; ++tries) {
    len = ::llistxattr(path, nullptr, 0);
    if (len <= 0) break;
    names.resize(static_cast<std::size_t>(len));
    len = ::llistxattr(path, names.data(), names.size());
    if (len >= 0 || errno != ERANGE) break;  // ERANGE: the list grew in between
  }
  if (len < 0) {
    if (errno == ENOTSUP || errno == ENOENT) return;  // no xattrs on this fs / gone
    out["!llistxattr"] = error_marker("llistxattr");
    return;
  }
  std::vector<char> value;
  for (std::size_t i = 0; i < static_cast<std::size_t>(len);) {
    const std::string name(names.data() + i);
    i += name.size() + 1;
    if (name.empty()) continue;
    ssize_t vlen = -1;
    for (int tries = 0; tries < 4; ++tries) {
      vlen = ::lgetxattr(path, name.c_str(), nullptr, 0);
      if (vlen <= 0) break;
      value.resize(static_cast<std::size_t>(vlen));
      vlen = ::lgetxattr(path, name.c_str(), value.data(), value.size());
      if (vlen >= 0 || errno != ERANGE) break;
    }
    if (vlen < 0) {
      if (errno == ENODATA) continue;  // removed in between
      const std::string marker = error_marker("lgetxattr");
      out[name] = marker;
      continue;
    }
    out[name] = hex(value.data(), static_cast<std::size_t>(vlen));
  }
}

char type_of(mode_t m) {
  if (S_ISREG(m)) return 'f';
  if (S_ISDIR(m)) return 'd';
  if (S_ISLNK(m)) return 'l';
  if (S_ISFIFO(m)) return 'p';
  if (S_ISSOCK(m)) return 's';
  if (S_ISCHR(m)) return 'c';
  if (S_ISBLK(m)) return 'b';
  return '?';
}

}  // namespace

bool stat_path(const std::filesystem::path& p, FileState& out) {
  const char* path = p.c_str();
  struct stat st {};
  if (::lstat(path, &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    throw_errno("lstat " + p.string());
  }
  out = FileState{};
  out.type = type_of(st.st_mode);
  out.dev = static_cast<std::uint64_t>(st.st_dev);
  out.inode = static_cast<std::uint64_t>(st.st_ino);
  out.mode = static_cast<std::uint32_t>(st.st_mode);
  out.uid = static_cast<std::uint32_t>(st.st_uid);
  out.gid = static_cast<std::uint32_t>(st.st_gid);
  out.size = static_cast<std::uint64_t>(st.st_size);
  out.nlink = static_cast<std::uint64_t>(st.st_nlink);
  if (out.type == 'f') out.digest = file_digest(path, st);
  if (out.type == 'l') out.digest = link_target(path, st);
  read_xattrs(path, out.xattrs);
  return true;
}

}  // namespace breakout
