// The `none` spawner: a plain spawn with no isolation at all — the positive control.
//
// It hands the probe the caller's whole environment and runs it as is; every
// deny attempt must therefore come out `escape`. If it does not, the probe or
// the oracle is broken, not the (absent) sandbox.
#include "harness/spawner/spawner.h"

namespace breakout {

namespace {

class NoneSpawner final : public Spawner {
 public:
  std::string name() const override { return "none"; }
  std::string description() const override {
    return "plain spawn, no isolation: the positive control (every deny must be an escape)";
  }
  std::string version() const override { return "builtin"; }
  std::optional<std::string> unavailable_reason() const override { return std::nullopt; }
  std::optional<std::string> cannot_express(const Policy&) const override { return std::nullopt; }
  SpawnPlan plan(const SpawnRequest& r) const override {
    SpawnPlan p;
    p.argv = r.probe_argv;
    for (const auto& [k, v] : r.caller_env) p.env.push_back(k + "=" + v);
    p.cwd = r.cwd;
    return p;
  }
};

}  // namespace

std::unique_ptr<Spawner> make_none_spawner() { return std::make_unique<NoneSpawner>(); }

}  // namespace breakout
