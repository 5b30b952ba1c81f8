// Running one live case through the real pipeline (plan → run_attempt → outside oracles) against a spawner.
//
// Shared by fuzz/live_fuzzer.cc and `breakout repro`. An escape counts only when
// it is confirmed: the target's verdict is escape AND its control (the workspace
// twin in the same form; for proxy cases the allowed destination, unspelled), run
// right after, passes. An escape with a broken control is
// reported as unconfirmed (neither escape nor pass).
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/attempt/record.h"
#include "harness/live/live_case.h"
#include "harness/model/policy.h"

namespace breakout {

class Spawner;
class TreePool;
class ExternalHost;
class NonceListeners;
class NameServer;
class ResidueWatch;

// What proxy cases need besides a spawner, as `breakout run` makes it (cli/main.cc): the external
// host's namespace with its listeners (net:proxy-allowed, proxy-denied, name-denied) and the
// run's name server. Made once per process, below `work_root`; removed when it goes (RAII).
class LiveNetwork {
 public:
  LiveNetwork(const std::string& nonce, const std::filesystem::path& work_root);
  ~LiveNetwork();
  LiveNetwork(const LiveNetwork&) = delete;
  LiveNetwork& operator=(const LiveNetwork&) = delete;
  const NonceListeners* listeners() const { return listeners_.get(); }
  const NameServer* names() const { return names_.get(); }
  const ExternalHost* external() const { return external_.get(); }

 private:
  std::unique_ptr<ExternalHost> external_;
  std::unique_ptr<NonceListeners> listeners_;
  std::unique_ptr<NameServer> names_;
};

struct LiveSetup {
  const Spawner* spawner = nullptr;
  std::filesystem::path probes_dir;   // breakout-probe-* binaries
  bool check_probes = false;          // repro: a probe missing there is Error("bad-probes") before the case runs
  std::filesystem::path work_root;    // attempt trees go below it (each removed after its attempt, or recycled)
  std::map<std::string, Policy> policies;  // all_live_policies(), loaded from scenarios/policies
  const std::atomic<bool>* cancel = nullptr;
  TreePool* tree_pool = nullptr;      // recycle attempt trees (tree.h); nullptr: a fresh one each
  // Proxy cases only; nullptr: the planner skips them ("no network listeners in this run").
  const LiveNetwork* network = nullptr;
  // What the spawner leaves on the host (spawner_residue.h), charged and removed as `breakout run`
  // does; nullptr: not watched.
  ResidueWatch* residue = nullptr;
};

// Loads all_live_policies() from `scenarios_dir`/policies; throws Error.
std::map<std::string, Policy> load_live_policies(const std::filesystem::path& scenarios_dir);

struct LiveOutcome {
  AttemptRecord target;                  // the case's target
  std::optional<AttemptRecord> control;  // run when the target escaped
  bool escape = false;                   // confirmed: target escape and control pass
  bool unconfirmed = false;              // target escape but the control did not pass
};

LiveOutcome run_live_case(const LiveCase& c, const LiveSetup& setup);

// The outcome in plain words: the case, each verdict with its reason, the outside evidence.
std::string describe_outcome(const LiveCase& c, const LiveOutcome& o);

}  // namespace breakout
