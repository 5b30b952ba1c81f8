// A spawner that runs nothing: each exec performs a canned host effect and returns a canned LaunchResult.
//
// The judges (harness/classes/*/) read only the host, so a test can stand in for the sandbox
// and its probe at once: the script decides what "the sandboxed command" did on the host (a file
// written, a nonce sent to a listener, a canary printed, a beater left running) and what the
// spawner answered. Everything else (tree, listeners, snapshots, judge()) is the harness's own.
//
//   FakeSpawner s;
//   s.on_exec = [](const SpawnRequest& r, const LaunchSpec&) { write_text(arg(r, "--path"), "x"); return exited(0); };
//   ctx.spawner = &s;  run_attempt(ex, ctx);
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/spawner/spawner.h"

namespace breakout::judges {

using ExecScript = std::function<LaunchResult(const SpawnRequest&, const LaunchSpec&)>;

class FakeSpawner final : public Spawner {
 public:
  // One exec of the sandboxed command. Default: exit 0, nothing done.
  ExecScript on_exec;
  // The session's boot (open), its shutdown and its close; nothing by default.
  std::function<void(const SpawnRequest&)> on_open;
  std::function<void()> on_shutdown, on_close;
  // A boot that throws (a refused boot) when it returns a reason for this request.
  std::function<std::optional<std::string>(const SpawnRequest&)> refuse_boot;
  // The file API (driver capability fs); unset: no API (throws, as the base class).
  std::function<FsAnswer(const std::string& path, const std::string& content)> on_write_file;
  std::function<FsAnswer(const std::string& path)> on_read_file;

  bool sessions = false;                        // has_sessions()
  int concurrent = 1;                           // concurrent_execs()
  std::map<std::string, std::string> pins;      // pinned_env()

  // What the harness handed the sandbox, in order (thread-safe).
  std::vector<SpawnRequest> requests() const;
  int opens() const { return opens_.load(); }

  std::string name() const override { return "fake"; }
  std::string description() const override { return "unit-test stand-in for a sandbox (tests/unit/judges)"; }
  std::string version() const override { return "0"; }
  std::optional<std::string> unavailable_reason() const override { return std::nullopt; }
  std::optional<std::string> cannot_express(const Policy&) const override { return std::nullopt; }
  SpawnPlan plan(const SpawnRequest&) const override { return {}; }
  std::unique_ptr<SpawnSession> open(const SpawnRequest& boot, const LaunchSpec& limits, Containment* box,
                                     const std::atomic<bool>* cancel) const override;
  bool has_sessions() const override { return sessions; }
  int concurrent_execs() const override { return concurrent; }
  std::map<std::string, std::string> pinned_env() const override { return pins; }
  std::optional<std::string> no_fs_api_reason() const override {
    if (on_write_file || on_read_file) return std::nullopt;
    return Spawner::no_fs_api_reason();
  }

  // Called by the sessions.
  LaunchResult run(const SpawnRequest& r, const LaunchSpec& limits) const;

 private:
  mutable std::mutex mu_;
  mutable std::vector<SpawnRequest> requests_;
  mutable std::atomic<int> opens_{0};
};

}  // namespace breakout::judges
