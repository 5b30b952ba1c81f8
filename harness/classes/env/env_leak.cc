// The env-leak judge: the canary value the caller gave the variable, seen outside (the output, a file
// of the tree).
#include "harness/attempt/oracle.h"
#include "harness/classes/env/judge.h"

namespace breakout::oracles {

namespace {

class EnvLeak final : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    return observe_token(s.io.caller_env_token, "environment", run, s.tree, {});
  }
};

}  // namespace

std::unique_ptr<Oracle> env_leak() { return make_oracle<EnvLeak>(); }

}  // namespace breakout::oracles
