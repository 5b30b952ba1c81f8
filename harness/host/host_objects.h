// Host sensor for host objects (targets "ipc:<name>"): the harness creates the
// object before the spawn, hands its address to the probe, and inspects it after.
//
// One RAII object per attempt: the destructor removes what it created (kills and
// reaps the victim, IPC_RMID, shm_unlink, unlink, invalidates the key, closes
// the pty), also when the attempt unwinds on an error or an interrupt.
//
//   auto obj = make_host_object("sysv-shm", {nonce, tree, workspace, probes_dir});
//   probe gets obj->spec();  ...spawn...;  HostEvidence e = obj->inspect();
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace breakout {

class ExternalHost;  // platform/netns.h

struct HostObjectSetup {
  std::string nonce;
  std::filesystem::path tree;        // the attempt tree's root (harness-side files go here)
  std::filesystem::path workspace;
  std::filesystem::path probes_dir;  // holds breakout-probe-victim
  const ExternalHost* external = nullptr;  // the run's external host (icmp-external), or null
};

struct HostEvidence {
  bool changed = false;      // the host object itself shows the probe's touch
  std::string token;         // secret to look for in the output ("" none)
  bool token_decides = true; // false: a read is allowed by policy (shared-dir files), evidence only
  std::string summary;       // one line: what changed, or what was checked
  nlohmann::json evidence = nlohmann::json::object();
};

class HostObject {
 public:
  virtual ~HostObject() = default;
  virtual std::string spec() const = 0;   // what {target} expands to
  virtual HostEvidence inspect() = 0;     // after the spawner returned; bounded
  // A pty slave path the spawner gets as stdin and controlling terminal (tty-inject).
  virtual std::string controlling_tty() const { return ""; }
  // Files in the attempt tree the object itself keeps writing while the attempt runs (the
  // victim's status file): the harness's own changes, left out of the collateral check
  // (attempt/collateral.h). The object's own oracle judges what happens to them.
  virtual std::vector<std::filesystem::path> own_files() const { return {}; }
};

// Creates the object named by an "ipc:" target; throws Error when the host cannot.
std::unique_ptr<HostObject> make_host_object(const std::string& name, const HostObjectSetup& setup);

}  // namespace breakout
