// classify_access: POSIX ACL/mode and Windows SDDL rights per principal, before against after.
#include "harness/host/access_change.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "harness/host/posix_acl_xattr.h"

namespace breakout {

namespace {

// Rights of each principal, and which of their bits count as "write" (the rest is read/traverse).
struct Rights {
  std::map<std::string, std::uint32_t> allow, deny;
  std::uint32_t write_bits = 0;
  std::optional<std::string> owner;
};

// ---- POSIX: acl(5) xattr layout (include/uapi/linux/posix_acl_xattr.h) --------------------------

constexpr std::uint32_t kW = 2;

std::optional<std::string> unhex(const std::string& h) {
  if (h.size() % 2 != 0) return std::nullopt;
  std::string out(h.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    unsigned v = 0;
    for (int k = 0; k < 2; ++k) {
      const char c = h[2 * i + k];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return std::nullopt;
      v = v * 16 + static_cast<unsigned>(d);
    }
    out[i] = static_cast<char>(v);
  }
  return out;
}

// Effective rights per principal of one ACL blob; false when it is not a version-2 ACL.
bool add_acl(const std::string& blob, const std::string& prefix, const FileState& st, Rights& r) {
  if (blob.size() < 4 || (blob.size() - 4) % 8 != 0) return false;
  struct E {
    std::uint16_t tag, perm;
    std::uint32_t id;
  };
  std::vector<E> entries;
  std::optional<std::uint16_t> mask;
  for (std::size_t off = 4; off + 8 <= blob.size(); off += 8) {
    E e;
    std::memcpy(&e.tag, blob.data() + off, 2);  // little-endian on every platform Linux ACLs exist on
    std::memcpy(&e.perm, blob.data() + off + 2, 2);
    std::memcpy(&e.id, blob.data() + off + 4, 4);
    if (e.tag == posix_acl::kMask) mask = e.perm;
    entries.push_back(e);
  }
  const std::uint32_t m = mask ? *mask : 7;
  for (const E& e : entries) {
    const std::uint32_t perm = e.perm & 7;
    switch (e.tag) {
      case posix_acl::kUserObj: r.allow[prefix + "owner uid " + std::to_string(st.uid)] = perm; break;
      case posix_acl::kUser: r.allow[prefix + "user:" + std::to_string(e.id)] = perm & m; break;  // masked (acl(5))
      case posix_acl::kGroupObj: r.allow[prefix + "group gid " + std::to_string(st.gid)] = perm & m; break;
      case posix_acl::kGroup: r.allow[prefix + "group:" + std::to_string(e.id)] = perm & m; break;
      case posix_acl::kOther: r.allow[prefix + "other"] = perm; break;
      default: break;
    }
  }
  return true;
}

Rights posix_rights(const FileState& st) {
  Rights r;
  r.write_bits = kW;
  const auto acl = st.xattrs.find("system.posix_acl_access");
  const std::optional<std::string> blob = acl == st.xattrs.end() ? std::nullopt : unhex(acl->second);
  if (!blob || !add_acl(*blob, "", st, r)) {
    // No extended ACL: the mode bits are the minimal ACL (acl(5)).
    r.allow["owner uid " + std::to_string(st.uid)] = (st.mode >> 6) & 7;
    r.allow["group gid " + std::to_string(st.gid)] = (st.mode >> 3) & 7;
    r.allow["other"] = st.mode & 7;
  }
  if (const auto def = st.xattrs.find("system.posix_acl_default"); def != st.xattrs.end())
    if (const auto b = unhex(def->second)) add_acl(*b, "default ", st, r);  // what new entries will get
  // setuid/setgid gained, or the sticky bit lost on a directory, let others do more.
  r.allow["mode setuid/setgid"] = (st.mode & 06000) ? kW : 0;
  r.allow["directory without sticky bit"] = st.type == 'd' && !(st.mode & 01000) ? kW : 0;
  r.owner = std::to_string(st.uid);
  return r;
}

// ---- Windows: SDDL (Microsoft Learn, "Security Descriptor String Format", "ACE Strings") -------

constexpr std::uint32_t kFileWriteBits =
    0x2 | 0x4 | 0x10 | 0x40 | 0x100 |  // write data, append, write EA, delete child, write attributes
    0x10000 | 0x40000 | 0x80000 |      // DELETE, WRITE_DAC, WRITE_OWNER
    0x10000000 | 0x40000000;           // GENERIC_ALL, GENERIC_WRITE

std::uint32_t sddl_rights(const std::string& s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return static_cast<std::uint32_t>(std::strtoul(s.c_str() + 2, nullptr, 16));
  static const std::map<std::string, std::uint32_t> kCodes = {
      {"GA", 0x10000000}, {"GR", 0x80000000}, {"GW", 0x40000000}, {"GX", 0x20000000},
      {"FA", 0x1F01FF},   {"FR", 0x120089},   {"FW", 0x120116},   {"FX", 0x1200A0},
      {"RC", 0x20000},    {"SD", 0x10000},    {"WD", 0x40000},    {"WO", 0x80000},
      {"CC", 0x1},        {"DC", 0x2},        {"LC", 0x4},        {"SW", 0x8},
      {"RP", 0x10},       {"WP", 0x20},       {"DT", 0x40},       {"LO", 0x80},
      {"CR", 0x100},      {"KA", 0xF003F},    {"KR", 0x20019},    {"KW", 0x20006},  {"KX", 0x20019}};
  std::uint32_t out = 0;
  for (std::size_t i = 0; i + 2 <= s.size(); i += 2) {
    const auto it = kCodes.find(s.substr(i, 2));
    out |= it == kCodes.end() ? 0xFFFFFFFFu : it->second;  // unknown: assume the worst
  }
  return out;
}

// The text of one SDDL component ("O:", "G:", "D:", "S:") up to the next one.
std::optional<std::string> sddl_part(const std::string& sddl, char which) {
  std::size_t depth = 0;
  for (std::size_t i = 0; i + 1 < sddl.size(); ++i) {
    if (sddl[i] == '(') ++depth;
    else if (sddl[i] == ')' && depth) --depth;
    else if (depth == 0 && sddl[i] == which && sddl[i + 1] == ':') {
      std::size_t end = i + 2, d = 0;
      for (; end < sddl.size(); ++end) {
        if (sddl[end] == '(') ++d;
        else if (sddl[end] == ')' && d) --d;
        else if (d == 0 && end + 1 < sddl.size() && sddl[end + 1] == ':' &&
                 (sddl[end] == 'O' || sddl[end] == 'G' || sddl[end] == 'D' || sddl[end] == 'S'))
          break;
      }
      return sddl.substr(i + 2, end - i - 2);
    }
  }
  return std::nullopt;
}

Rights sddl_rights_of(const std::string& sddl) {
  Rights r;
  r.write_bits = kFileWriteBits;
  r.owner = sddl_part(sddl, 'O');
  const std::optional<std::string> dacl = sddl_part(sddl, 'D');
  if (!dacl || dacl->find("NO_ACCESS_CONTROL") != std::string::npos) {
    r.allow["everyone (null DACL)"] = 0xFFFFFFFFu;  // a null DACL grants everyone everything
    return r;
  }
  for (std::size_t open = dacl->find('('); open != std::string::npos; open = dacl->find('(', open + 1)) {
    const std::size_t close = dacl->find(')', open);
    if (close == std::string::npos) break;
    std::vector<std::string> f;
    std::size_t start = open + 1;
    for (std::size_t semi; (semi = dacl->find(';', start)) < close; start = semi + 1) f.push_back(dacl->substr(start, semi - start));
    f.push_back(dacl->substr(start, close - start));
    if (f.size() < 6) continue;
    const std::uint32_t rights = sddl_rights(f[2]);
    if (f[0] == "A") r.allow[f[5]] |= rights;
    else if (f[0] == "D") r.deny[f[5]] |= rights;
  }
  return r;
}

Rights rights_of(const FileState& st) {
  if (const auto it = st.xattrs.find("sddl"); it != st.xattrs.end()) return sddl_rights_of(it->second);
  return posix_rights(st);
}

std::string bits_text(std::uint32_t bits, const Rights& r) {
  if (r.write_bits == kW) {  // POSIX rwx
    std::string s;
    if (bits & 4) s += 'r';
    if (bits & 2) s += 'w';
    if (bits & 1) s += 'x';
    return s;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", bits);
  return buf;
}

struct StrongestMove {
  AccessMove move = AccessMove::kNone;
  std::string why;
  void raise(AccessMove m, std::string text) {
    if (static_cast<int>(m) > static_cast<int>(move)) move = m, why = std::move(text);
  }
};

// `gained` bits for a principal: write-class widens, the rest grants read.
void gained(StrongestMove& v, const Rights& r, const std::string& who, std::uint32_t bits, const char* how) {
  if (bits == 0) return;
  v.raise(bits & r.write_bits ? AccessMove::kWidens : AccessMove::kGrantsRead,
          who + " " + how + " " + bits_text(bits, r));
}

}  // namespace

const char* to_string(AccessMove m) {
  switch (m) {
    case AccessMove::kNone: return "none";
    case AccessMove::kNarrows: return "narrows";
    case AccessMove::kGrantsRead: return "grants-read";
    case AccessMove::kWidens: return "widens";
  }
  return "?";
}

AccessChange classify_access(const FileState* before, const FileState* after) {
  if (before == nullptr || after == nullptr) return {AccessMove::kNone, before ? "removed" : "created"};
  const Rights b = rights_of(*before), a = rights_of(*after);
  StrongestMove v;
  if (b.owner != a.owner) v.raise(AccessMove::kWidens, "owner " + b.owner.value_or("?") + " -> " + a.owner.value_or("?"));
  auto get = [](const std::map<std::string, std::uint32_t>& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? 0u : it->second;
  };
  for (const auto& [who, bits] : a.allow) gained(v, a, who, bits & ~get(b.allow, who), "gained");
  for (const auto& [who, bits] : b.deny) gained(v, a, who, bits & ~get(a.deny, who), "lost a deny of");
  for (const auto& [who, bits] : b.allow)
    if (bits & ~get(a.allow, who)) v.raise(AccessMove::kNarrows, who + " lost " + bits_text(bits & ~get(a.allow, who), b));
  for (const auto& [who, bits] : a.deny)
    if (bits & ~get(b.deny, who)) v.raise(AccessMove::kNarrows, who + " denied " + bits_text(bits & ~get(b.deny, who), a));
  return {v.move, v.why};
}

}  // namespace breakout
