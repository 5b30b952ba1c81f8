// The sandbox under test, seen from the harness: it turns (policy, probe command) into a command to launch.
//
// Kinds: `none` (plain spawn, the positive control: every deny must escape) and
// template profiles (spawners/*.toml) that map the policy onto a CLI sandbox's
// flags. Driver spawners (protocol v1) come with the driver issue.
//
//   auto s = make_spawner("bwrap", spawners_dir);
//   if (auto why = s->cannot_express(policy)) skip(*why);
//   SpawnPlan plan = s->plan(request);   // then run_process(plan.argv, ...)
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/policy.h"

namespace breakout {

struct SpawnRequest {
  const Policy* policy = nullptr;
  ResolvedPolicy resolved;                      // policy paths on this attempt's tree
  TreeRoots roots;
  std::vector<std::string> probe_argv;          // absolute probe path + arguments
  std::string cwd;                              // where the probe must run
  std::map<std::string, std::string> caller_env;  // what the caller hands the spawner (with canaries)
};

struct SpawnPlan {
  std::vector<std::string> argv;  // what the harness launches
  std::vector<std::string> env;   // "NAME=value" for the launched process
  std::string cwd;
};

class Spawner {
 public:
  virtual ~Spawner() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::string version() const = 0;                       // "" when unknown
  virtual std::optional<std::string> unavailable_reason() const = 0;  // e.g. tool not installed
  virtual std::optional<std::string> cannot_express(const Policy& policy) const = 0;
  virtual SpawnPlan plan(const SpawnRequest& request) const = 0;
};

// `name_or_profile`: "none", a profile name from `spawners_dir`, or a path to a .toml profile.
std::unique_ptr<Spawner> make_spawner(const std::string& name_or_profile,
                                      const std::filesystem::path& spawners_dir);
std::unique_ptr<Spawner> make_none_spawner();

// "none" plus the profile names found in `spawners_dir`.
std::vector<std::string> list_spawners(const std::filesystem::path& spawners_dir);

}  // namespace breakout
