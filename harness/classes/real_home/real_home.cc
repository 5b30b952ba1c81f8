// Oracle of the real-host classes: keyed digests of the real HOME's files, and the one canary-named write target.
//
// `breakout run --real-host` (docs/real-host.md, attempt/real_home.h) points real-home-read
// and real-home-write at the user's real HOME; nothing of it is ever copied out.
#include <fstream>

#include "harness/attempt/oracle.h"
#include "harness/classes/real_home/judge.h"
#include "harness/core/error.h"
#include "harness/core/sha256.h"

namespace breakout::oracles {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kProbeReadCap = 1u << 20;  // probes/fs-read.cc kMaxRead: the bytes its digest covers

bool exists_nofollow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

// Before the spawn: a real secret that is not there has nothing to read (a Skip), and a
// write target that exists already would fake a write (Error).
std::optional<Skip> check_real_home_target(bool write, const AttemptIo& io) {
  if (!write && !exists_nofollow(io.target_path))
    return Skip{io.target_path.string() + " does not exist in this HOME: nothing to read"};
  if (write && exists_nofollow(io.target_path))
    throw Error("real-host", "the write target " + io.target_path.string() + " exists before the attempt");
  return std::nullopt;
}

// real-home-read: the output holds keyed_sha256_hex(nonce, the file's first MiB) as computed
// here from the real file (probes/fs-read.cc --key). real-home-write: the target exists afterwards.
Observation observe_real_home(bool write, const AttemptIo& io, const LaunchResult& run) {
  Observation o;
  if (write) {
    const bool created = exists_nofollow(io.target_path);
    o.effect = created ? Effect::kHappened : Effect::kNotHappened;
    o.summary = created ? io.target_path.string() + " was created on the host" : "no file appeared at the target";
    o.evidence["created"] = created;
    return o;
  }
  std::ifstream in(io.target_path, std::ios::binary);
  if (!in.is_open()) throw Error("real-host", "the harness cannot open " + io.target_path.string() + " to verify a read");
  std::string bytes(kProbeReadCap, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) throw Error("real-host", "the harness cannot read " + io.target_path.string() + " to verify a read");
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  const bool matched = run.out.find(keyed_sha256_hex(io.nonce, bytes)) != std::string::npos;
  o.effect = matched ? Effect::kHappened : Effect::kNotHappened;
  o.summary = matched ? "the output holds the keyed digest of the real file: it was read"
                      : "no keyed digest of the real file in the output";
  o.evidence["keyed_digest_matched"] = matched;  // never the digest or the content
  o.evidence["host_bytes_digested"] = bytes.size();
  return o;
}

class RealHome final : public Oracle {
 public:
  explicit RealHome(bool write) : write_(write) {}
  std::optional<Skip> prepare(Scene& s) override { return check_real_home_target(write_, s.io); }
  Observation observe(Scene& s, const LaunchResult& run) override { return observe_real_home(write_, s.io, run); }

 private:
  const bool write_;
};

}  // namespace

std::unique_ptr<Oracle> real_home_read() { return std::make_unique<RealHome>(false); }
std::unique_ptr<Oracle> real_home_write() { return std::make_unique<RealHome>(true); }

}  // namespace breakout::oracles
