// detach_mounts_under on Linux: mount points from /proc/self/mountinfo, umount2 MNT_DETACH.
#include "harness/platform/tree_mounts.h"

#include <sys/mount.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace breakout {

namespace {

constexpr int kMaxDetaches = 256;

// mountinfo escapes space, tab, newline and backslash in a path as \ooo (proc(5)).
std::string unescape_octal(const std::string& s) {
  const auto octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && octal(s[i + 1]) && octal(s[i + 2]) && octal(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The mount points at or under `dir` in this mount namespace, deepest (longest) first.
std::vector<std::string> mount_points_under(const std::string& dir) {
  std::vector<std::string> found;
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, devno, root, point;
    if (!(fields >> id >> parent >> devno >> root >> point)) continue;
    point = unescape_octal(point);
    if (point == dir || point.rfind(dir + "/", 0) == 0) found.push_back(point);
  }
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return found;
}

}  // namespace

bool detach_mounts_under(const std::filesystem::path& dir, std::vector<std::filesystem::path>* detached) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::weakly_canonical(dir, ec);
  std::string base = (ec ? dir : real).lexically_normal().string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (base.empty() || base == "/") return false;  // never the host's own mounts: no tree is the root
  // Mounts stacked on one point need one detach each; a detach of a parent takes its children.
  for (int done = 0; done < kMaxDetaches;) {
    const auto points = mount_points_under(base);
    if (points.empty()) return true;
    bool progress = false;
    for (const auto& p : points) {
      if (done >= kMaxDetaches) break;
      if (::umount2(p.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
        ++done;
        progress = true;
        if (detached) detached->emplace_back(p);
      }
    }
    if (!progress) return false;  // not ours to detach (no CAP_SYS_ADMIN here): the caller keeps the tree
  }
  return mount_points_under(base).empty();
}

}  // namespace breakout
