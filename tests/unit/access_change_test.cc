// classify_access: which way a setup change moves rights (POSIX ACL/mode, Windows SDDL).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "harness/host/access_change.h"

using namespace breakout;

namespace {

struct E {
  std::uint16_t tag, perm;
  std::uint32_t id;
};
constexpr std::uint16_t kUserObj = 1, kUser = 2, kGroupObj = 4, kMask = 0x10, kOther = 0x20;
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// The hex the snapshot stores for a system.posix_acl_access value (version 2, little-endian).
std::string acl_hex(std::initializer_list<E> entries) {
  std::string bytes = {2, 0, 0, 0};
  for (const E& e : entries) {
    for (int i = 0; i < 2; ++i) bytes += static_cast<char>((e.tag >> (8 * i)) & 0xff);
    for (int i = 0; i < 2; ++i) bytes += static_cast<char>((e.perm >> (8 * i)) & 0xff);
    for (int i = 0; i < 4; ++i) bytes += static_cast<char>((e.id >> (8 * i)) & 0xff);
  }
  std::string hex;
  for (unsigned char c : bytes) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", c);
    hex += b;
  }
  return hex;
}

FileState dir(std::uint32_t mode = 0755) {
  FileState s;
  s.type = 'd';
  s.mode = 040000 | mode;
  return s;
}

FileState with_acl(FileState s, std::initializer_list<E> entries) {
  s.xattrs["system.posix_acl_access"] = acl_hex(entries);
  return s;
}

FileState sddl(const std::string& text) {
  FileState s;
  s.type = 'd';
  s.xattrs["sddl"] = text;
  return s;
}

AccessMove move(const FileState& a, const FileState& b) { return classify_access(&a, &b).move; }

}  // namespace

TEST(AccessChange, CreatedOrRemovedMovesNoRight) {
  const FileState d = dir();
  EXPECT_EQ(classify_access(nullptr, &d).move, AccessMove::kNone);
  EXPECT_EQ(classify_access(&d, nullptr).move, AccessMove::kNone);
  EXPECT_EQ(move(d, d), AccessMove::kNone);
}

TEST(AccessChange, NamedUserReadGrantIsReadOnlyAndWriteGrantWidens) {
  const FileState before = dir();
  const FileState rx = with_acl(dir(), {{kUserObj, 7, kNone}, {kUser, 5, 1234}, {kGroupObj, 5, kNone}, {kMask, 5, kNone}, {kOther, 5, kNone}});
  const FileState rwx = with_acl(dir(), {{kUserObj, 7, kNone}, {kUser, 7, 1234}, {kGroupObj, 5, kNone}, {kMask, 7, kNone}, {kOther, 5, kNone}});
  EXPECT_EQ(move(before, rx), AccessMove::kGrantsRead);
  const AccessChange w = classify_access(&before, &rwx);
  EXPECT_EQ(w.move, AccessMove::kWidens);
  EXPECT_NE(w.why.find("user:1234"), std::string::npos) << w.why;
  // Revoking it again narrows.
  EXPECT_EQ(move(rwx, before), AccessMove::kNarrows);
}

TEST(AccessChange, TheMaskLimitsNamedEntries) {
  // user:1234 rwx under mask r-x has r-x: raising only the mask gives it w.
  const FileState masked = with_acl(dir(), {{kUserObj, 7, kNone}, {kUser, 7, 1234}, {kGroupObj, 5, kNone}, {kMask, 5, kNone}, {kOther, 5, kNone}});
  const FileState open = with_acl(dir(), {{kUserObj, 7, kNone}, {kUser, 7, 1234}, {kGroupObj, 5, kNone}, {kMask, 7, kNone}, {kOther, 5, kNone}});
  EXPECT_EQ(move(dir(), masked), AccessMove::kGrantsRead);
  EXPECT_EQ(move(masked, open), AccessMove::kWidens);
}

TEST(AccessChange, ModeBitsOwnerAndSpecialBits) {
  EXPECT_EQ(move(dir(0755), dir(0757)), AccessMove::kWidens);   // other gained w
  EXPECT_EQ(move(dir(0750), dir(0755)), AccessMove::kGrantsRead);
  EXPECT_EQ(move(dir(0755), dir(0700)), AccessMove::kNarrows);
  EXPECT_EQ(move(dir(01777), dir(0777)), AccessMove::kWidens);  // sticky bit cleared on a shared dir
  FileState chowned = dir();
  chowned.uid = 1000;
  EXPECT_EQ(move(dir(), chowned), AccessMove::kWidens);
}

TEST(AccessChange, UnrelatedXattrAndContentMoveNoRight) {
  FileState tagged = dir();
  tagged.xattrs["user.breakout.mark"] = "6162";
  tagged.digest = "other";
  EXPECT_EQ(move(dir(), tagged), AccessMove::kNone);
}

TEST(AccessChange, WindowsAllowAndDenyAces) {
  const std::string base = "O:BAG:SYD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)";
  EXPECT_EQ(move(sddl(base), sddl(base + "(A;OICI;0x1200a9;;;S-1-5-21-1)")), AccessMove::kGrantsRead);
  EXPECT_EQ(move(sddl(base), sddl(base + "(A;OICI;FW;;;S-1-5-21-1)")), AccessMove::kWidens);
  EXPECT_EQ(move(sddl(base), sddl(base + "(A;;GA;;;WD)")), AccessMove::kWidens);
  // Codex-style deny ACEs outside the workspace narrow; removing one widens.
  const std::string denied = "O:BAG:SYD:PAI(D;OICI;FW;;;S-1-5-21-1)(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)";
  EXPECT_EQ(move(sddl(base), sddl(denied)), AccessMove::kNarrows);
  const FileState with_deny = sddl(denied), without = sddl(base);
  const AccessChange removed = classify_access(&with_deny, &without);
  EXPECT_EQ(removed.move, AccessMove::kWidens);
  EXPECT_NE(removed.why.find("lost a deny"), std::string::npos) << removed.why;
  // A null DACL grants everyone everything; a new owner may rewrite the DACL.
  EXPECT_EQ(move(sddl(base), sddl("O:BAG:SYD:NO_ACCESS_CONTROL")), AccessMove::kWidens);
  EXPECT_EQ(move(sddl(base), sddl("O:S-1-5-21-1G:SYD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)")), AccessMove::kWidens);
}
