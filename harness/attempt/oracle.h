// One oracle per attempt class: how the class's execution goes, and how the host is read after it.
//
// run_attempt.cc calls the steps in order; each has a default that is right for a
// probe run once in a booted sandbox, so most oracles write observe() alone. The
// oracle table (oracle_table.cc) names each class's oracle; implementations live one
// per family under harness/classes/<family>/. An oracle decides from outside (the host, the
// listeners, the harness's own captures); the probe's report is display, or at most
// an excuse (excuse.h) that nothing happening outside must back.
#pragma once

#include <memory>
#include <optional>

#include "harness/attempt/observe.h"
#include "harness/attempt/scene.h"
#include "harness/attempt/skip.h"

namespace breakout {

class Oracle {
 public:
  virtual ~Oracle() = default;
  // Before the host snapshot: what the class needs besides the generic io (a cwd to
  // create, leaked fds, a capture bound, planted marks, a guard to remove later). A Skip
  // when the attempt does not apply here (skip.h): nothing boots then.
  virtual std::optional<Skip> prepare(Scene&) { return std::nullopt; }
  // Boots the sandbox. Default: the spawner's open(), and for spawners with sessions a
  // second snapshot after boot so its own setup is recorded, not charged to the probe
  // (setup_record.h). May return null for a class that boots by itself in exec().
  virtual std::unique_ptr<SpawnSession> open(Scene& scene);
  // After boot, before the probe: learn pins, start watching. A Skip when what was learnt
  // leaves nothing to attempt (no pinned variable): the probe does not run.
  virtual std::optional<Skip> before_exec(Scene&, SpawnSession*) { return std::nullopt; }
  // The probe's run. Default: one exec, recorded; an interrupted or unstarted exec throws.
  virtual LaunchResult exec(Scene& scene, SpawnSession* session);
  // The host's evidence: what happened, judged by judge() against the expectation.
  virtual Observation observe(Scene& scene, const LaunchResult& run) = 0;
  // Ends the session. Default: shutdown; a failure turns a pass into an error.
  virtual void end(Scene& scene, SpawnSession* session);
  // After judging and the box's kill: what prepare() left on the host besides the tree.
  virtual void clean_up(Scene&) {}
  // Whether the execution is also judged for escapes besides its own (collateral.h).
  virtual bool collateral() const { return true; }
};

// One exec's record fields (argv, exit, report, excerpts); display only.
void record_run(AttemptRecord& rec, const std::vector<std::string>& command, const LaunchResult& run);

// A fresh oracle for one execution of class `c` (attempt/oracle_table.cc).
std::unique_ptr<Oracle> make_oracle_for(AttemptClass c);

template <class O>
std::unique_ptr<Oracle> make_oracle() {
  return std::make_unique<O>();
}

}  // namespace breakout
