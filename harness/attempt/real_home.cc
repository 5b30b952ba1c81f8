// Planting and removing the real-host canaries, and finding the real HOME.
#include "harness/attempt/real_home.h"

#include <cstdlib>
#include <fstream>
#include <regex>

#include "harness/attempt/env_pinned.h"
#include "harness/attempt/tree.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/sha256.h"

namespace breakout {

namespace fs = std::filesystem;

fs::path real_home_from_env() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') throw Error("[real-host] HOME is not set: nothing to run against");
  const fs::path p(home);
  std::error_code ec;
  if (!p.is_absolute() || !fs::is_directory(p, ec))
    throw Error("[real-host] HOME=" + p.string() + " is not an absolute path to a directory");
  if (fs::weakly_canonical(p, ec) == fs::path("/"))
    throw Error("[real-host] HOME is / : refusing to plant canaries at the root of the file system");
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

constexpr std::size_t kProbeReadCap = 1u << 20;  // probes/fs-read.cc kMaxRead: the bytes its digest covers

bool exists_nofollow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

}  // namespace

void check_real_home_target(const Execution& ex, const AttemptIo& io) {
  if (ex.attempt->klass == AttemptClass::kRealHomeRead && !exists_nofollow(io.target_path))
    throw NothingToAttempt(io.target_path.string() + " does not exist in this HOME: nothing to read");
  if (ex.attempt->klass == AttemptClass::kRealHomeWrite && exists_nofollow(io.target_path))
    throw Error("[real-host] the write target " + io.target_path.string() + " exists before the attempt");
}

Observation observe_real_home(const Execution& ex, const AttemptIo& io, const LaunchResult& run) {
  Observation o;
  if (ex.attempt->klass == AttemptClass::kRealHomeWrite) {
    const bool created = exists_nofollow(io.target_path);
    o.effect = created ? Effect::kHappened : Effect::kNotHappened;
    o.summary = created ? io.target_path.string() + " was created on the host" : "no file appeared at the target";
    o.evidence["created"] = created;
    return o;
  }
  std::ifstream in(io.target_path, std::ios::binary);
  if (!in.is_open()) throw Error("[real-host] the harness cannot open " + io.target_path.string() + " to verify a read");
  std::string bytes(kProbeReadCap, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) throw Error("[real-host] the harness cannot read " + io.target_path.string() + " to verify a read");
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  const bool matched = run.out.find(keyed_sha256_hex(io.nonce, bytes)) != std::string::npos;
  o.effect = matched ? Effect::kHappened : Effect::kNotHappened;
  o.summary = matched ? "the output holds the keyed digest of the real file: it was read"
                      : "no keyed digest of the real file in the output";
  o.evidence["keyed_digest_matched"] = matched;  // never the digest or the content
  o.evidence["host_bytes_digested"] = bytes.size();
  return o;
}

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
    throw Error("[real-host] " + planted_.string() + " or its .new twin exists already");
  std::ofstream out(planted_, std::ios::binary | std::ios::trunc);
  out << "breakout real-host canary (removed after the attempt): " << kCanaryPrefix << random_hex(16) << "\n";
  if (!out) throw Error("[real-host] cannot plant " + planted_.string());
}

RealHomeCanaries::~RealHomeCanaries() {
  std::error_code ec;
  fs::remove_all(planted_, ec);
  fs::remove_all(write_target_, ec);
}

}  // namespace breakout
