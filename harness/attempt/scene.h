// One execution's objects, built once and handed to every step of run_attempt and to its oracle.
//
// The tree, the caller's environment, the io the probe is pointed at, the spawn request,
// the harness's own bounds on the exec, the containment and the record travel together;
// a step takes the scene instead of seven to nine of them.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/attempt/observe.h"
#include "harness/attempt/real_home.h"
#include "harness/attempt/record.h"
#include "harness/attempt/run_context.h"
#include "harness/attempt/tree.h"
#include "harness/oracle/fs_snapshot.h"
#include "harness/platform/process.h"
#include "harness/spawner/spawner.h"

namespace breakout {

class Scene {
 public:
  // The fresh tree (with canaries; the real HOME's for real-home classes, which need
  // `run --real-host`: NothingToAttempt otherwise), the caller's environment with its
  // canaries, and the io aimed at the target (listeners, host objects, path forms).
  Scene(const Execution& ex, const RunContext& ctx, AttemptRecord& rec);
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  // The probe command and the exec's bounds, from the io as the oracle prepared it. Bounds
  // the oracle set in prepare() (a timeout, a capture size, leaked fds) are kept.
  void compose();
  // The host before boot: the window's start until boot moves it (at_boot).
  void snapshot_before();
  // What the probe is judged against: after boot where boot was recorded, else before it.
  const Snapshot& window() const { return at_boot ? *at_boot : *before; }

  const Execution& ex;
  const RunContext& ctx;
  AttemptRecord& rec;
  const std::string nonce;
  std::unique_ptr<RealHomeCanaries> real_canaries;  // real-home classes only
  AttemptTree tree;
  std::map<std::string, std::string> env_tokens;  // caller variable -> its canary
  AttemptIo io;
  SpawnRequest request;
  LaunchSpec limits;
  Containment box;
  std::optional<Snapshot> before;
  std::optional<Snapshot> at_boot;

  const Attempt& attempt() const { return *ex.attempt; }
  AttemptClass klass() const { return ex.attempt->klass; }
  std::string tag() const { return nonce.substr(0, 8); }
};

}  // namespace breakout
