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
#include "harness/attempt/skip.h"
#include "harness/paths/attempt_tree.h"
#include "harness/host/fs_snapshot.h"
#include "harness/platform/process.h"
#include "harness/spawner/spawner.h"

namespace breakout {

// Why no scene can be built for `ex` here: a real-host class outside `run --real-host`
// (docs/real-host.md). Asked before the Scene, whose tree is built around the real HOME.
std::optional<Skip> scene_unavailable(const Execution& ex, const RunContext& ctx);

// The placeholders of an execution's probe arguments and `env` values and what each expands to
// (docs/scenarios.md, "Placeholders in args"); probe_argv adds the run's {proxy_allowed} and
// {target_name}. `{root_pid}` depends on the target: the harness's pid, or `self` for the
// workspace socket (ipc.unix-alias.proc-root's control).
std::map<std::string, std::string> probe_placeholders(const Execution& ex, const AttemptTree& tree,
                                                      const AttemptIo& io);

class Scene {
 public:
  // The fresh tree (with canaries; the real HOME's for real-home classes, for which
  // scene_unavailable() must have said nothing) and the caller's environment with its canaries.
  Scene(const Execution& ex, const RunContext& ctx, AttemptRecord& rec);
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  // The io aimed at the target (listeners, host objects, the path in its form); a Skip when
  // the target cannot be aimed at here (prepare_io, observe.h).
  std::optional<Skip> aim();

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
