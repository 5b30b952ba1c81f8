// Internal to the POSIX layer: whether the harness holds a capability, read from /proc/self/status.
#pragma once

#include <fstream>
#include <string>

namespace breakout {

// `bit` as in <linux/capability.h> (CAP_NET_ADMIN 12, CAP_SYS_ADMIN 21); false when CapEff cannot
// be read.
inline bool has_effective_capability(int bit) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> bit) & 1u;
  return false;
}

}  // namespace breakout
