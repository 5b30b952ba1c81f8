// Spawn one probe and time it: the raw floor (no harness) and a probe through a Spawner.
//
// SpawnerTarget::spawn_once() is the ONE place that knows how a spawner runs a
// probe for a benchmark: one exec in a session opened once (command-line
// spawners: a plan + run_process per exec; drivers: a warm exec in a booted
// session). SessionBootTarget times boot + shutdown (drivers). The schedulers
// in bench_run.h and bench/*.cc see a Target and nothing else.
//
//   BenchTree tree(policy);                                  // fresh workspace + fake HOME, removed on exit
//   SpawnerTarget t(*spawner, tree, {noop_path}, 60s);
//   SpawnSample s = t.spawn_once();                          // throws Error unless the probe exited 0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/model/policy.h"
#include "harness/spawner/spawner.h"

namespace breakout {
class AttemptTree;
}

namespace breakout::bench {

struct SpawnSample {
  std::chrono::nanoseconds wall{0};    // from "start the spawn" to "reaped and pipes drained"
  std::uint64_t out_bytes = 0, err_bytes = 0;  // seen on the probe's stdout / stderr (0 for raw: /dev/null)
};

// One timed way to run the probe.
class Target {
 public:
  virtual ~Target() = default;
  virtual SpawnSample spawn_once() = 0;  // throws Error when the probe did not run and exit 0
};

// A temp work root with one attempt tree (workspace, sibling, fake HOME with
// canaries) and the policy resolved on it: what a spawner is asked to confine.
class BenchTree {
 public:
  explicit BenchTree(Policy policy);
  ~BenchTree();
  BenchTree(const BenchTree&) = delete;
  BenchTree& operator=(const BenchTree&) = delete;

  // The request a run would hand the spawner (caller env, cwd = workspace).
  SpawnRequest request(std::vector<std::string> probe_argv) const;

 private:
  Policy policy_;
  std::filesystem::path root_;
  std::unique_ptr<AttemptTree> tree_;
};

// The probe through `spawner`: one exec of a session, timed, as an attempt
// spawns (without the per-attempt containment cgroup, which is attempt
// bookkeeping, not spawning). stdin /dev/null, stdout/stderr drained and counted.
// The session is opened on the first call, outside the timing: for a driver
// every sample is a warm exec.
class SpawnerTarget final : public Target {
 public:
  SpawnerTarget(const Spawner& spawner, const BenchTree& tree, std::vector<std::string> probe_argv,
                std::chrono::milliseconds timeout, const std::atomic<bool>* cancel = nullptr);
  ~SpawnerTarget() override;
  SpawnSample spawn_once() override;

 private:
  const Spawner& spawner_;
  SpawnRequest request_;
  std::chrono::milliseconds timeout_;
  const std::atomic<bool>* cancel_;
  LaunchSpec limits_;
  std::unique_ptr<SpawnSession> session_;
};

// A driver's session boot + shutdown (+ letting go of the driver process), timed together.
class SessionBootTarget final : public Target {
 public:
  SessionBootTarget(const Spawner& spawner, const BenchTree& tree, std::chrono::milliseconds timeout,
                    const std::atomic<bool>* cancel = nullptr);
  SpawnSample spawn_once() override;

 private:
  const Spawner& spawner_;
  SpawnRequest request_;
  LaunchSpec limits_;
  const std::atomic<bool>* cancel_;
};

// The physical floor: the same argv, env and cwd as the `none` spawner's plan,
// started with posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK) + execve), stdio
// on /dev/null, waitpid; on Windows CreateProcessW, stdio on NUL,
// WaitForSingleObject. No pipes, no event loop, no job, no harness.
class RawTarget final : public Target {
 public:
  RawTarget(std::vector<std::string> argv, std::vector<std::string> env, std::string cwd);
  SpawnSample spawn_once() override;  // platform file: bench/posix/raw_spawn.cc, bench/win/raw_spawn.cc

 private:
  std::vector<std::string> argv_, env_;
  std::string cwd_;
};

// The raw target for exactly what `none` would launch from `tree`.
std::unique_ptr<RawTarget> make_raw_target(const BenchTree& tree, std::vector<std::string> probe_argv);

}  // namespace breakout::bench
