// The run's temp directory for attempt trees (/tmp/breakout-<nonce>), removed on every exit path (RAII).
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

namespace breakout {

class WorkRoot {
 public:
  explicit WorkRoot(const std::string& run_nonce)
      : path_(std::filesystem::temp_directory_path() / ("breakout-" + run_nonce)) {
    std::filesystem::create_directories(path_);
  }
  ~WorkRoot() { remove(); }
  WorkRoot(const WorkRoot&) = delete;
  WorkRoot& operator=(const WorkRoot&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Early removal (before abort/_Exit, which skip destructors). Idempotent.
  void remove() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace breakout
