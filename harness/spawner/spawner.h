// The sandbox under test, seen from the harness: sessions that boot with a policy, run commands, shut down.
//
// Kinds: `none` (plain spawn, the positive control: every deny must escape),
// template profiles (spawners/*.toml) that map the policy onto a CLI sandbox's
// flags, and drivers (protocol v1, docs/drivers.md) for sandboxes that are
// libraries with sessions. Command-line kinds turn (policy, probe command) into
// one command per exec (plan); their session boot and shutdown are no-ops.
//
//   auto s = make_spawner("bwrap", spawners_dir);
//   if (auto why = s->cannot_express(policy)) skip(*why);
//   auto session = s->open(request, &box, &cancel);   // boot
//   LaunchResult r = session->exec(request, limits);   // spawn, drain, wait
//   session->shutdown();
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.h"
#include "harness/core/refusal.h"
#include "harness/model/mechanism.h"
#include "harness/model/policy.h"
#include "harness/model/scenario.h"
#include "harness/model/target.h"
#include "harness/platform/process.h"

namespace breakout {

struct SpawnRequest {
  const Policy* policy = nullptr;
  ResolvedPolicy resolved;                      // policy paths on this attempt's tree
  TreeRoots roots;
  std::vector<std::string> probe_argv;          // absolute probe path + arguments
  std::string cwd;                              // where the probe must run
  std::map<std::string, std::string> caller_env;  // what the caller hands the spawner (with canaries)
  // Per-exec variables the caller asks for on top (class env-pinned); a name may repeat.
  std::vector<std::pair<std::string, std::string>> env_overrides;
  // network = "proxy" only: the destinations ("198.18.7.2:40123", IP literal and port) the
  // sandbox's proxy must admit (net:proxy-allowed) and one it must not (net:proxy-denied).
  // A profile needs only the allowed list; the denied one is for tools that also take a deny list.
  std::vector<std::string> proxy_allow, proxy_deny;
  // The timeout the caller asks the spawner for (nullopt: none at all). The
  // harness's own bound on the wait is LaunchSpec::timeout.
  std::optional<std::chrono::milliseconds> timeout;
};

struct SpawnPlan {
  std::vector<std::string> argv;  // what the harness launches
  std::vector<std::string> env;   // "NAME=value" for the launched process
  std::string cwd;
  // The spawner's own per-attempt directory (template `{spawner_dir}`): created before the
  // launch, outside the judged tree, removed with everything in it when the session ends.
  std::string scratch_dir;
  // Files written (created or replaced) before the launch: a generated config (path, text).
  std::vector<std::pair<std::string, std::string>> files;
  // Run after the launch whatever became of it (timeout, interrupt): the tool's own cleanup of
  // this exec (template `after`). Empty: nothing. It failing fails the exec: its state is left.
  std::vector<std::string> after;
};

// What the spawner's file API answered to one request. A refusal (driver `ok: false`) is a
// sandbox's expected answer, "the op did not happen", so it is a value; a broken driver throws.
struct FsAnswer {
  std::optional<Refusal> refusal;      // set when refused: the driver's code and message
  std::string content;                 // read_file's bytes, when it was done
};

// The sandbox as booted for one attempt. exec may be called from several threads
// at once when the spawner allows concurrent execs.
class SpawnSession {
 public:
  virtual ~SpawnSession() = default;
  // Runs request.probe_argv in the sandbox and waits for it. `limits` carries the
  // timeout, the capture bound and leaked fds (its argv/env/cwd are ignored).
  virtual LaunchResult exec(const SpawnRequest& request, const LaunchSpec& limits) = 0;
  // What the harness launched, for the record (the spawner command, or the driver's).
  virtual std::vector<std::string> command_line() const = 0;
  // Ends the session; throws Error when the spawner fails to (drivers). Idempotent.
  // The spawner itself stays up (a driver keeps running) until close().
  virtual void shutdown() = 0;
  // Lets go of the spawner (a driver's stdin is closed, then it is killed):
  // every exec still waiting returns. Idempotent; the destructor calls it.
  virtual void close() {}
  // The spawner's own side of the story (driver stderr, protocol notes); displayed only.
  virtual nlohmann::json evidence() const { return nlohmann::json::object(); }
  // The spawner's own file API (driver capability `fs`, docs/drivers.md): write or
  // read a host file on the sandbox's behalf. A refusal is an answer (FsAnswer::refusal);
  // anything else that goes wrong (no API, a broken driver) throws Error.
  virtual FsAnswer write_file(const std::string& path, const std::string& content);
  virtual FsAnswer read_file(const std::string& path);
  // The spawner's refusal of this session's boot (a driver's `ok: false` with a refusal code):
  // the session exists, runs nothing, and answers every exec and fs op with this refusal.
  virtual std::optional<Refusal> boot_refusal() const { return std::nullopt; }
};

class Spawner {
 public:
  virtual ~Spawner() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::string version() const = 0;                       // "" when unknown
  // What the sandbox cannot do or does by design, as its profile says (template `notes`):
  // shown in the report beside the findings it explains. "" when there are none.
  virtual std::string notes() const { return ""; }
  virtual std::optional<std::string> unavailable_reason() const = 0;  // e.g. tool not installed
  virtual std::optional<std::string> cannot_express(const Policy& policy) const = 0;
  // The same for one execution: a rule a spawner cannot express may affect only some
  // attempts (a tool without read denial fails only the reads of denied paths), and the
  // planner skips just those with the reason. Default: the policy's answer.
  virtual std::optional<std::string> cannot_express_execution(const Policy& policy, AttemptClass,
                                                              const Target*) const {
    return cannot_express(policy);
  }
  // Why the sandbox refuses `m` under `policy` whatever the policy says, when its profile
  // declares so ([refuses], docs/spawners.md): srt's seccomp fails socket(AF_UNIX). nullopt:
  // not declared. Controls that need it are then judged as that limitation (model/mechanism.h).
  virtual std::optional<std::string> refuses(Mechanism, const Policy&) const { return std::nullopt; }
  // Whether a finished run of a command-line spawner was the tool's declared refusal: it ran
  // nothing (template [refusal_exit], docs/spawners.md). nullopt: a run like any other.
  virtual std::optional<Refusal> refusal_in(const LaunchResult&) const { return std::nullopt; }
  virtual SpawnPlan plan(const SpawnRequest& request) const = 0;

  // Boots the sandbox for one attempt (policy and tree from `boot`). Everything
  // it starts runs inside `box`. Default: plan()+run_process per exec.
  // `limits.inherit_fds` are leaked to what the harness starts (drivers: at boot).
  virtual std::unique_ptr<SpawnSession> open(const SpawnRequest& boot, const LaunchSpec& limits, Containment* box,
                                             const std::atomic<bool>* cancel) const;
  // True when boot and shutdown are real steps (drivers): the session classes need them.
  virtual bool has_sessions() const { return false; }
  // True when the spawner declares that setup changes which only narrow access stay after
  // shutdown by design (driver capability persistent_setup: Codex's Windows deny ACEs); the
  // hygiene check then lists them as persistent host changes instead of charging them.
  virtual bool persistent_setup() const { return false; }
  // How many execs one session runs at once (drivers: capabilities.concurrent_exec).
  virtual int concurrent_execs() const { return 1; }
  // Variables the spawner itself pins (driver hello.pinned_env), besides the policy's.
  virtual std::map<std::string, std::string> pinned_env() const { return {}; }
  // Why sessions have no write_file/read_file (nullopt: they have; drivers with capability fs).
  virtual std::optional<std::string> no_fs_api_reason() const {
    return name() + " has no file-system API (a driver with capability fs has, docs/drivers.md); it runs commands only";
  }
};

// `name_or_profile`: "none", a profile name from `spawners_dir`, or a path to a .toml profile;
// NAME@VERSION runs a template profile on a published release of its tool ({tools}, registry.cc).
std::unique_ptr<Spawner> make_spawner(const std::string& name_or_profile,
                                      const std::filesystem::path& spawners_dir);
std::unique_ptr<Spawner> make_none_spawner();

// "none" plus the profile names found in `spawners_dir`.
std::vector<std::string> list_spawners(const std::filesystem::path& spawners_dir);

}  // namespace breakout
