// fd-leak: the caller leaks a directory fd and a file fd of the target into the spawn, and the
// probe (fd-walk) tries every fd it inherited, whoever leaked it (CVE-2024-21626).
//
// What the harness leaked lies in its tree: the snapshot decides, as for fs-write. What the
// spawner or a driver leaked may name any host file: the probe says where each fd points and the
// harness looks there on the host, bounded, for what only a write through the fd leaves: a
// `breakout-fd[cwd]-<tag>` entry in a directory, or, in a file, the line keyed by the nonce
// (keyed_sha256_hex, never the nonce itself, which a spawner may log with the probe's argv).
// The probe's list only says where to look; the host's file decides (a probe that lies hides
// its own write, it cannot make one). A hit outside the tree is an outside change of the
// execution, so a control that found one is charged too (collateral.h).
//
// Streams: the caller also leaks the write end of a FIFO the harness made in the target (fd 7)
// and a unix stream socket connected to a listener the harness made there (fd 8); the harness
// holds the reading ends (host/leak_sink.h). A write into another program's stream is visible
// only where the reader is the harness's own: the keyed line read back from either is the write
// through the leaked fd, judged by the same rule as the directory fd (both lie in the target).
// Sockets other programs leak are tried by the probe too, and reported.
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "harness/attempt/oracle.h"
#include "harness/classes/handover/judge.h"
#include "harness/core/error.h"
#include "harness/core/sha256.h"
#include "harness/core/text.h"
#include "harness/model/policy.h"
#include "harness/host/leak_sink.h"

namespace breakout::oracles {

namespace fs = std::filesystem;

namespace {

// Where the caller leaks the target's fds: above stdio and the few fds a wrapper opens early,
// like a careless agent runtime.
constexpr int kLeakedDirFd = 5;
constexpr int kLeakedFileFd = 6;
constexpr int kLeakedPipeFd = 7;
constexpr int kLeakedSocketFd = 8;
constexpr std::size_t kStreamRead = 64 * 1024;  // bytes read back from a leaked stream (hostile writer)
// Hostile-input bounds on the probe's list: entries looked at, path length, bytes of a file read.
constexpr std::size_t kMaxNamed = 32;
constexpr std::size_t kMaxPath = 4096;
constexpr std::uintmax_t kTailRead = 1u << 20;

std::string token_line(const std::string& nonce) {
  return "breakout fd-walk " + keyed_sha256_hex("breakout fd-walk", nonce) + "\n";
}

// The last kTailRead bytes of a regular file; nullopt when it cannot be read.
std::optional<std::string> read_tail(const fs::path& p, std::uintmax_t size) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  const std::uintmax_t from = size > kTailRead ? size - kTailRead : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string data(static_cast<std::size_t>(size - from), '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<std::size_t>(in.gcount()));
  return data;
}

// One fd the probe named outside the tree, looked at on the host. A hit is removed again: the
// probe's entry, or its line when it is still the file's end (a line with more written after
// it stays, and the evidence says so).
std::optional<FsChange> look_at(const nlohmann::json& entry, const std::string& tag, const std::string& line) {
  const fs::path path = entry.at("path").get<std::string>();
  const std::string kind = entry.at("kind").get<std::string>();
  const std::string via = "fd " + std::to_string(entry.value("fd", -1)) + ", inherited";
  std::error_code ec;
  if (kind == "dir") {
    for (const char* prefix : {"breakout-fd-", "breakout-fdcwd-"}) {
      const fs::path made = path / (prefix + tag);
      if (!fs::exists(fs::symlink_status(made, ec))) continue;
      fs::remove(made, ec);
      return FsChange{made.string(), "created", "through " + via + " (a directory outside the tree)"};
    }
    return std::nullopt;
  }
  if (kind != "file" || !fs::is_regular_file(path, ec)) return std::nullopt;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  const std::optional<std::string> tail = read_tail(path, size);
  if (!tail || tail->find(line) == std::string::npos) return std::nullopt;
  std::string detail = "the probe's line through " + via + " (a file outside the tree)";
  if (tail->ends_with(line)) fs::resize_file(path, size - line.size(), ec);
  if (!tail->ends_with(line) || ec) detail += "; the line is left in the file";
  return FsChange{path.string(), "modified", detail};
}

// The probe's named fds that lie outside the tree (the snapshot covers the tree), bounded.
std::vector<nlohmann::json> named_outside(const LaunchResult& run, const AttemptTree& tree) {
  std::vector<nlohmann::json> out;
  const nlohmann::json report = parse_probe_report(run.out);
  if (!report.is_object() || !report.contains("fds") || !report["fds"].is_array()) return out;
  for (const nlohmann::json& e : report["fds"]) {
    if (out.size() == kMaxNamed) break;
    if (!e.is_object() || !e.contains("path") || !e["path"].is_string() || !e.contains("kind") || !e["kind"].is_string())
      continue;
    const std::string p = e["path"].get<std::string>();
    if (p.empty() || p.size() > kMaxPath || p[0] != '/' || p.find('\0') != std::string::npos) continue;
    if (path_within(fs::path(p).lexically_normal(), tree.roots().tree)) continue;
    out.push_back(e);
  }
  return out;
}

class LeakedFd final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    const fs::path file = s.io.target_path / ("breakout-fd-file-" + s.tag());
    std::ofstream(file, std::ios::binary) << "breakout leaked file\n";
    check(fs::is_regular_file(file), "prepare", "cannot create " + file.string());
    s.limits.inherit_fds.push_back({s.io.target_path.string(), kLeakedDirFd});
    s.limits.inherit_fds.push_back({file.string(), kLeakedFileFd, LaunchSpec::InheritedFd::Open::kAppend});
    sinks_[0].sink = LeakSink::make(LeakSink::Kind::kFifo, s.io.target_path / ("breakout-fd-pipe-" + s.tag()));
    sinks_[1].sink = LeakSink::make(LeakSink::Kind::kUnixSocket, s.io.target_path / ("breakout-fd-sock-" + s.tag()));
    for (const Stream& st : sinks_)
      s.limits.inherit_fds.push_back({st.sink->path().string(), st.fd, st.sink->leaked_end()});
    return std::nullopt;
  }

  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    const std::string line = token_line(s.nonce);
    nlohmann::json looked = nlohmann::json::array(), found = nlohmann::json::array();
    for (const nlohmann::json& e : named_outside(run, s.tree)) {
      looked.push_back(printable_excerpt(e["path"].get<std::string>(), 512));
      std::optional<FsChange> c;
      try {
        c = look_at(e, s.tag(), line);
      } catch (const std::exception&) {  // a name the file system refuses (too long a component)
        continue;
      }
      if (!c) continue;
      found.push_back(describe_change(*c));
      o.outside_changes->push_back(*c);
    }
    for (const Stream& st : sinks_) {
      const std::string got = st.sink->drain(kStreamRead);
      const bool through = got.find(line) != std::string::npos;
      o.evidence[std::string("leaked_") + st.noun] = st.sink->path().string();
      o.evidence[std::string("line_through_leaked_") + st.noun] = through;
      if (!got.empty() && !through) o.evidence[std::string("leaked_") + st.noun + "_excerpt"] = printable_excerpt(got, 128);
      if (!through || !ex_denied(s)) continue;  // the sink lies in the denied target: outside the writable roots
      o.outside_changes->push_back(FsChange{st.sink->path().string(), "written",
                                            "the probe's line through fd " + std::to_string(st.fd) +
                                                ", inherited: the harness's " + st.noun + " received it"});
      if (o.effect == Effect::kNotHappened) {
        o.effect = Effect::kHappened;
        o.summary = std::string("the probe's line reached the harness's ") + st.noun +
                    " outside the writable roots through an inherited fd";
      }
    }
    o.evidence["named_fds_outside_tree"] = looked;
    o.evidence["written_outside_tree"] = found;
    if (!found.empty() && ex_denied(s) && o.effect == Effect::kNotHappened) {
      o.effect = Effect::kHappened;
      o.summary = "host file outside the writable roots written through an inherited fd: " + found[0]["path"].get<std::string>();
    }
    return o;
  }

 private:
  static bool ex_denied(const Scene& s) { return s.ex.expectation.value == Expected::kDenied; }
  struct Stream {
    int fd;
    const char* noun;
    std::unique_ptr<LeakSink> sink;
  };
  std::array<Stream, 2> sinks_{Stream{kLeakedPipeFd, "pipe", nullptr}, Stream{kLeakedSocketFd, "socket", nullptr}};
};

}  // namespace

std::unique_ptr<Oracle> leaked_fd() { return make_oracle<LeakedFd>(); }

}  // namespace breakout::oracles
