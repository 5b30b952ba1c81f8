// POSIX plant_host_marks: a named-user entry in system.posix_acl_access (acl(5) xattr format) plus a user xattr.
#include "harness/host/host_marks.h"

#include <pwd.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/host/posix_acl_xattr.h"

namespace breakout {

namespace {

struct Entry {
  std::uint16_t tag, perm;
  std::uint32_t id;
};

std::vector<Entry> decode(const std::string& blob) {
  std::vector<Entry> out;
  if (blob.size() < 4) return out;
  for (std::size_t off = 4; off + 8 <= blob.size(); off += 8) {
    Entry e;
    std::memcpy(&e.tag, blob.data() + off, 2);
    std::memcpy(&e.perm, blob.data() + off + 2, 2);
    std::memcpy(&e.id, blob.data() + off + 4, 4);
    out.push_back(e);
  }
  return out;
}

std::string encode(std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.tag != b.tag ? a.tag < b.tag : a.id < b.id; });
  std::string blob(4 + 8 * entries.size(), '\0');
  std::memcpy(blob.data(), &posix_acl::kVersion, 4);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::memcpy(blob.data() + 4 + 8 * i, &entries[i].tag, 2);
    std::memcpy(blob.data() + 4 + 8 * i + 2, &entries[i].perm, 2);
    std::memcpy(blob.data() + 4 + 8 * i + 4, &entries[i].id, 4);
  }
  return blob;
}

}  // namespace

unsigned mark_uid() {
  static const unsigned uid = [] {
    for (int tries = 0; tries < 64; ++tries) {
      const unsigned candidate = 1000000000u + static_cast<unsigned>(std::stoul(random_hex(3), nullptr, 16));
      if (::getpwuid(candidate) == nullptr) return candidate;
    }
    throw Error("plant marks: no unused uid found in [1e9, 1e9 + 2^24) after 64 tries");
  }();
  return uid;
}

void plant_host_marks(const std::filesystem::path& path, const std::string& nonce) {
  const char* p = path.c_str();
  struct stat st {};
  if (::lstat(p, &st) != 0) throw_errno("plant marks: lstat " + path.string());
  std::string blob(4096, '\0');
  const ssize_t n = ::getxattr(p, "system.posix_acl_access", blob.data(), blob.size());
  std::vector<Entry> entries;
  if (n > 0) {
    blob.resize(static_cast<std::size_t>(n));
    entries = decode(blob);
  } else {
    // No extended ACL yet: the minimal ACL is the mode bits (acl(5)).
    const auto bits = [&](int shift) { return static_cast<std::uint16_t>((st.st_mode >> shift) & 7); };
    entries = {{posix_acl::kUserObj, bits(6), posix_acl::kUndefinedId},
               {posix_acl::kGroupObj, bits(3), posix_acl::kUndefinedId},
               {posix_acl::kOther, bits(0), posix_acl::kUndefinedId}};
  }
  const unsigned uid = mark_uid();
  std::uint16_t group_class = 0;
  bool have_mask = false;
  for (const auto& e : entries) {
    if (e.tag == posix_acl::kGroupObj || e.tag == posix_acl::kGroup || e.tag == posix_acl::kUser)
      group_class |= e.perm;
    have_mask = have_mask || e.tag == posix_acl::kMask;
  }
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [uid](const Entry& e) { return e.tag == posix_acl::kUser && e.id == uid; }),
                entries.end());
  entries.push_back({posix_acl::kUser, 5, uid});  // r-x
  group_class |= 5;
  if (have_mask) {
    for (auto& e : entries)
      if (e.tag == posix_acl::kMask) e.perm |= 5;
  } else {
    entries.push_back({posix_acl::kMask, group_class, posix_acl::kUndefinedId});
  }
  const std::string acl = encode(entries);
  if (::setxattr(p, "system.posix_acl_access", acl.data(), acl.size(), 0) != 0)
    throw_errno("plant marks: setxattr system.posix_acl_access on " + path.string());
  if (::setxattr(p, "user.breakout.mark", nonce.data(), nonce.size(), 0) != 0)
    throw_errno("plant marks: setxattr user.breakout.mark on " + path.string());
}

}  // namespace breakout
