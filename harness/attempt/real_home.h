// Real-host mode's only touches of the real HOME: one planted canary and one canary-named write target per attempt.
//
// `breakout run --real-host` (docs/real-host.md) points real-home-read and
// real-home-write attempts at the user's real HOME. Nothing else of the real HOME
// is ever written: reads are judged by keyed digests (the content stays where it
// is), and the only files that can appear are
//     ~/.breakout-canary-<8 hex>.txt   planted here, the control of real-home-read
//     ~/.breakout-canary-<8 hex>.new   what real-home-write tries to create
// both removed by the destructor (also when an attempt unwinds on Ctrl-C). HOME's
// own modification time is restored once, when the whole run ends (RealHomeRun):
// attempts run in parallel, so no single attempt knows the time before the run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>


namespace breakout {

// The real HOME from $HOME: absolute, an existing directory, not "/" (throws Error "[real-host] ...").
std::filesystem::path real_home_from_env();

// Removes what an interrupted real-host run may have left: entries of `home` whose
// name is exactly ".breakout-canary-<8 hex>.txt" or ".new". Returns what it removed.
std::vector<std::filesystem::path> remove_leftover_canaries(const std::filesystem::path& home);

// One per `run --real-host`: removes leftover canaries, records HOME's mtime, and
// restores it when the run ends (also on Ctrl-C unwinding); atime and ctime are not restored.
class RealHomeRun {
 public:
  explicit RealHomeRun(std::filesystem::path home);
  ~RealHomeRun();
  RealHomeRun(const RealHomeRun&) = delete;
  RealHomeRun& operator=(const RealHomeRun&) = delete;

  const std::filesystem::path& home() const { return home_; }
  const std::vector<std::filesystem::path>& removed_leftovers() const { return removed_; }

 private:
  std::filesystem::path home_;
  std::vector<std::filesystem::path> removed_;
  std::optional<std::filesystem::file_time_type> mtime_;
};

class RealHomeCanaries {
 public:
  RealHomeCanaries(const std::filesystem::path& home, const std::string& tag);  // plants the .txt canary
  ~RealHomeCanaries();
  RealHomeCanaries(const RealHomeCanaries&) = delete;
  RealHomeCanaries& operator=(const RealHomeCanaries&) = delete;

  const std::filesystem::path& planted() const { return planted_; }
  const std::filesystem::path& write_target() const { return write_target_; }

 private:
  std::filesystem::path planted_, write_target_;
};

}  // namespace breakout
