// The harness's end of a stream the caller leaks to the spawner (class fd-leak).
//
// A write into another program's pipe or socket shows on the host only where the reader is the
// harness's own: it makes a FIFO or a listening unix socket in the attempt's target directory,
// holds the reading end, and the spawn layer opens the other end and leaks it at a fixed fd
// (LaunchSpec::InheritedFd: kAppend opens the FIFO for writing, kUnixConnect connects to the
// socket). What the probe wrote through the leaked fd is then read back here, bounded and
// without blocking. POSIX only; on Windows make() throws (the fd-leak attempts are Linux-only).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "harness/platform/process.h"

namespace breakout {

class LeakSink {
 public:
  enum class Kind { kFifo, kUnixSocket };
  // Creates the sink at `path` (which must not exist); throws Error.
  static std::unique_ptr<LeakSink> make(Kind kind, const std::filesystem::path& path);
  virtual ~LeakSink() = default;  // closes its fds and removes `path`
  // How the spawn layer opens the end it leaks.
  virtual LaunchSpec::InheritedFd::Open leaked_end() const = 0;
  const std::filesystem::path& path() const { return path_; }
  // What arrived so far, at most `max` bytes, without waiting.
  virtual std::string drain(std::size_t max) = 0;

 protected:
  explicit LeakSink(std::filesystem::path p) : path_(std::move(p)) {}

 private:
  std::filesystem::path path_;
};

}  // namespace breakout
