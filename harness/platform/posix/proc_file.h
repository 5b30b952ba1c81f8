// Reading a small kernel file (/proc/<pid>/...) whole but bounded: a sandboxed process controls
// what some of them hold (comm, cmdline), so no read is longer than its caller allows.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <optional>
#include <string>

#include "harness/platform/posix/unique_fd.h"

namespace breakout {

// At most `limit` bytes of the file; nullopt when it cannot be opened or read.
inline std::optional<std::string> read_bounded(const std::string& path, std::size_t limit) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  std::string data;
  char buf[4096];
  while (data.size() < limit) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  if (data.size() > limit) data.resize(limit);
  return data;
}

}  // namespace breakout
