// The benchmark's spawn path through a Spawner (plan + run_process) and its fresh tree.
#include "harness/bench/spawn_probe.h"

#include "harness/paths/attempt_tree.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/platform/os.h"
#include "harness/platform/process.h"

namespace breakout::bench {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

BenchTree::BenchTree(Policy policy) : policy_(std::move(policy)) {
  const std::string nonce = random_hex(16);
  root_ = fs::temp_directory_path() / ("breakout-bench-" + nonce.substr(0, 12));
  fs::create_directories(root_);
  try {
    tree_ = std::make_unique<AttemptTree>(root_, 0, nonce);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(root_, ec);
    throw;
  }
}

BenchTree::~BenchTree() {
  tree_.reset();
  std::error_code ec;
  fs::remove_all(root_, ec);
}

SpawnRequest BenchTree::request(std::vector<std::string> probe_argv) const {
  SpawnRequest r;
  r.policy = &policy_;
  r.roots = tree_->roots();
  r.resolved = resolve(policy_, r.roots);
  r.probe_argv = std::move(probe_argv);
  r.cwd = r.roots.workspace.string();
  // The caller environment of an attempt (attempt/scene.cc), without canary tokens: the platform's
  // PATH and home variables (on Windows also USERPROFILE and SystemRoot).
  r.caller_env = caller_base_env(r.roots.home);
  r.caller_env["LANG"] = "C.UTF-8";
  return r;
}

SpawnerTarget::SpawnerTarget(const Spawner& spawner, const BenchTree& tree, std::vector<std::string> probe_argv,
                             std::chrono::milliseconds timeout, const std::atomic<bool>* cancel)
    : spawner_(spawner), request_(tree.request(std::move(probe_argv))), timeout_(timeout), cancel_(cancel) {
  request_.timeout = timeout_;
  limits_.timeout = timeout_;
  limits_.max_capture = 4096;  // only counted (pipe throughput); a little kept for the error message
}

SpawnerTarget::~SpawnerTarget() {
  if (!session_) return;
  try {
    session_->shutdown();
  } catch (const std::exception&) {
    // a benchmark's teardown: the sample figures are already taken
  }
}

SpawnSample SpawnerTarget::spawn_once() {
  if (!session_) session_ = spawner_.open(request_, limits_, nullptr, cancel_);
  const auto t0 = Clock::now();
  const LaunchResult r = session_->exec(request_, limits_);
  SpawnSample s;
  s.wall = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
  s.out_bytes = r.out_total;
  s.err_bytes = r.err_total;
  check(!r.cancelled, "interrupted");
  check(r.started, spawner_.name() + " did not start: " + r.start_error);
  check(!r.timed_out, spawner_.name() + ": the probe did not finish within " + std::to_string(timeout_.count()) +
                          " ms (--spawn-timeout)");
  check(r.exited && r.exit_code == 0,
        spawner_.name() + ": the probe did not exit 0 (" +
            (r.exited ? "exit " + std::to_string(r.exit_code) : "signal " + std::to_string(r.term_signal)) +
            "); stderr: " + printable_excerpt(r.err, 300));
  return s;
}

SessionBootTarget::SessionBootTarget(const Spawner& spawner, const BenchTree& tree, std::chrono::milliseconds timeout,
                                     const std::atomic<bool>* cancel)
    : spawner_(spawner), request_(tree.request({})), cancel_(cancel) {
  limits_.timeout = timeout;
}

SpawnSample SessionBootTarget::spawn_once() {
  const auto t0 = Clock::now();
  auto session = spawner_.open(request_, limits_, nullptr, cancel_);
  session->shutdown();
  session->close();
  SpawnSample s;
  s.wall = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
  return s;
}

RawTarget::RawTarget(std::vector<std::string> argv, std::vector<std::string> env, std::string cwd)
    : argv_(std::move(argv)), env_(std::move(env)), cwd_(std::move(cwd)) {
  check(!argv_.empty(), "raw spawn: empty argv");
}

std::unique_ptr<RawTarget> make_raw_target(const BenchTree& tree, std::vector<std::string> probe_argv) {
  const SpawnPlan plan = make_none_spawner()->plan(tree.request(std::move(probe_argv)));
  return std::make_unique<RawTarget>(plan.argv, plan.env, plan.cwd);
}

}  // namespace breakout::bench
