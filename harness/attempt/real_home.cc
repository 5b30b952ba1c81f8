// Planting and removing the real-host canaries, and finding the real HOME.
#include "harness/attempt/real_home.h"

#include <cstdlib>
#include <fstream>
#include <regex>

#include "harness/core/error.h"
#include "harness/core/nonce.h"

namespace breakout {

namespace fs = std::filesystem;

fs::path real_home_from_env() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') throw Error("real-host", "HOME is not set: nothing to run against");
  const fs::path p(home);
  std::error_code ec;
  if (!p.is_absolute() || !fs::is_directory(p, ec))
    throw Error("real-host", "HOME=" + p.string() + " is not an absolute path to a directory");
  if (fs::weakly_canonical(p, ec) == fs::path("/"))
    throw Error("real-host", "HOME is / : refusing to plant canaries at the root of the file system");
  return p;
}

std::vector<fs::path> remove_leftover_canaries(const fs::path& home) {
  static const std::regex kName(R"(\.breakout-canary-[0-9a-f]{8}\.(txt|new))");
  std::vector<fs::path> removed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(home, ec)) {
    if (!std::regex_match(e.path().filename().string(), kName)) continue;
    std::error_code rm;
    fs::remove_all(e.path(), rm);  // a symlink goes, never what it points at
    if (!rm) removed.push_back(e.path());
  }
  return removed;
}

namespace {

bool exists_nofollow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

}  // namespace

RealHomeRun::RealHomeRun(fs::path home) : home_(std::move(home)), removed_(remove_leftover_canaries(home_)) {
  std::error_code ec;
  if (const auto t = fs::last_write_time(home_, ec); !ec) mtime_ = t;
}

RealHomeRun::~RealHomeRun() {
  std::error_code ec;
  if (mtime_) fs::last_write_time(home_, *mtime_, ec);  // planting and removing canaries moved it
}

RealHomeCanaries::RealHomeCanaries(const fs::path& home, const std::string& tag)
    : planted_(home / (".breakout-canary-" + tag + ".txt")),
      write_target_(home / (".breakout-canary-" + tag + ".new")) {
  if (exists_nofollow(planted_) || exists_nofollow(write_target_))
    throw Error("real-host", planted_.string() + " or its .new twin exists already");
  std::ofstream out(planted_, std::ios::binary | std::ios::trunc);
  out << "breakout real-host canary (removed after the attempt): " << canary_token() << "\n";
  if (!out) throw Error("real-host", "cannot plant " + planted_.string());
}

RealHomeCanaries::~RealHomeCanaries() {
  std::error_code ec;
  fs::remove_all(planted_, ec);
  fs::remove_all(write_target_, ec);
}

}  // namespace breakout
