// Class env-pinned: learn what the spawner pins, then aim caller overrides at it in one spelling ("pin:<form>").
//
// Seed 002 comment 5: the caller's env was merged after the proxy poisoning, so
// HTTP_PROXY could simply be overridden. Pins come from the policy (env.pinned),
// the spawner's own declaration (driver hello.pinned_env) and a baseline exec
// (variables the spawner added or changed whose names route traffic or code:
// proxies, GIT_SSH*, LD_*, BASH_ENV, PYTHONPATH). Forms: exact name, other
// letter case (curl reads http_proxy before HTTP_PROXY on Linux), both cases,
// the name twice; "control" overrides the inherited BREAKOUT_INHERITED, which
// must arrive. Every override value is a fresh canary: seen in the child's
// output, it got through.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/attempt/observe.h"
#include "harness/core/error.h"
#include "harness/spawner/spawner.h"

namespace breakout {

struct PinAttack {
  std::map<std::string, std::string> pinned;  // name -> the value the child must see
  std::vector<std::string> tokens;            // override canaries
  nlohmann::json evidence = nlohmann::json::object();
};

// Thrown when there is nothing to aim at: the attempt is skipped with this reason.
class NothingToAttempt : public Error {
 public:
  using Error::Error;
};

// Runs the baseline exec (no overrides) through `session`, learns the pins and
// fills request->env_overrides for `form`. Throws NothingToAttempt when the
// spawner pins nothing, Error when the baseline exec fails.
PinAttack aim_overrides(const std::string& form, const Spawner& spawner, SpawnSession& session,
                        SpawnRequest* request, const LaunchSpec& limits);

// Outside evidence: an override canary in the child's output. In-run control
// for denied forms: every pinned variable shows its pinned value.
Observation observe_overrides(const std::string& form, const PinAttack& attack, const LaunchResult& run);

}  // namespace breakout
