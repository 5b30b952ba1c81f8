// What the class oracles (oracle.h) share: the io aimed at the target, snapshot diffs, canary search.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/attempt/record.h"
#include "harness/attempt/run_context.h"
#include "harness/attempt/skip.h"
#include "harness/paths/attempt_tree.h"
#include "harness/host/fs_snapshot.h"
#include "harness/host/host_objects.h"
#include "harness/host/net_listeners.h"
#include "harness/model/probe_report.h"  // parse_probe_report, for the oracles
#include "harness/platform/process.h"

namespace breakout {

// Per-attempt paths and listeners the probe is pointed at.
struct AttemptIo {
  std::string nonce;
  std::filesystem::path cwd;                 // where the probe runs
  std::filesystem::path heartbeat;           // lifetime / timeout-kill
  std::filesystem::path mark;                // cwd / no-timeout marker (absolute)
  std::filesystem::path witness;             // Execution::witness: where the probe leaves it (witness.h)
  std::filesystem::path target_path;         // fs targets, absolute
  std::string target_spec;                   // what {target} expands to (the target in the attempt's path form)
  std::string target_token;                  // fs targets: the canary token of target_path, if it is one
  std::string caller_env_token;              // env-leak: the canary value of the variable
  std::unique_ptr<UnixNonceListener> unix_listener;  // net:unix-workspace, unix-outside, abstract
  std::unique_ptr<HostObject> host_object;           // ipc:<name> (classes/host_object/host_object.cc)
};

// Lines in a file (heartbeats): 0 when it does not exist.
std::size_t count_lines(const std::filesystem::path& p);

// The `--technique` argument of a lifetime attempt ("" when it has none): spawn-escape's
// technique decides how a missing heartbeat is read (observe_heartbeat) and what the harness
// cleans up after judging (a scheduled task for "schtasks", run_attempt.cc).
std::string technique_of(const Attempt& a);

// Creates the per-attempt io aimed at the target (listener sockets, host objects, the path in
// its form); a Skip when the target cannot be aimed at here (a path form that does not apply,
// real-external without --real-host-endpoint); throws Error when something fails.
OrSkip<AttemptIo> prepare_io(const Execution& ex, const AttemptTree& tree, const RunContext& ctx,
                             const std::string& nonce, const std::string& env_token);

struct Observation {
  Effect effect = Effect::kUnknown;
  std::string summary;                        // one line for the verdict reason
  std::optional<std::string> in_run_control;  // see judge()
  // Set when the attempt could not be tried here and nothing happened (syscall-abi-write
  // on a kernel without that ABI): the verdict is skip with this reason, never pass.
  std::optional<std::string> not_applicable;
  nlohmann::json evidence = nlohmann::json::object();
  // Set by the fs oracle (observe_fs_change): every change it saw outside the writable roots,
  // so the collateral check (collateral.h) need not walk the tree again.
  std::optional<std::vector<FsChange>> outside_changes;
};

// The policy's writable roots less its protected paths (deny_write) on one tree, as the snapshot's '/'-separated relative keys.
class WritableRoots {
 public:
  WritableRoots(const AttemptTree& tree, const ResolvedPolicy& policy);
  bool contains(const std::string& rel) const;  // `rel` is a root or below one
  std::vector<FsChange> outside(const std::vector<FsChange>& changes) const;

 private:
  std::vector<std::string> rel_;
  std::vector<std::string> protected_;  // deny_write entries: never writable, even inside a root
};

// {"path", "change", "fields"} of one change, bounded (attacker-chosen names).
nlohmann::json describe_change(const FsChange& c);

// Snapshot diff judged against the writable roots (fs-write and everything that writes).
// `beyond_the_walk`: changes the tree's walk cannot see (it stays on the tree's device), keyed
// like the snapshot's paths: what a harness-owned mount inside the tree saw (classes/fs_write/submount.cc).
Observation observe_fs_change(const Execution& ex, const AttemptTree& tree, const ResolvedPolicy& policy,
                              const Snapshot& before, const AttemptIo& io,
                              const std::vector<FsChange>& beyond_the_walk = {});

// Where `token` shows up: stdout, stderr and every file of the tree but `own_file`.
std::vector<std::string> find_token(const std::string& token, const LaunchResult& run, const AttemptTree& tree,
                                    const std::filesystem::path& own_file);
// A canary token the harness planted, looked for outside (find_token): the read classes' observation
// (fs-read, env-leak). `what` names the canary in the summary ("file", "environment").
Observation observe_token(const std::string& token, const std::string& what, const LaunchResult& run,
                          const AttemptTree& tree, const std::filesystem::path& own_file);

}  // namespace breakout
