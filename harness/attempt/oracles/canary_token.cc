// Oracles of the read classes: a canary the harness planted, seen outside (output or a file of the tree).
#include "harness/attempt/excuse.h"
#include "harness/attempt/oracle.h"
#include "harness/attempt/oracles/oracles.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

Observation observe_token(const std::string& token, const std::string& what, const LaunchResult& run,
                          const AttemptTree& tree, const fs::path& own_file) {
  Observation o;
  if (token.empty()) {
    o.summary = what + ": no canary token to look for";
    return o;
  }
  const auto where = find_token(token, run, tree, own_file);
  o.evidence["token_seen_in"] = where;
  o.effect = where.empty() ? Effect::kNotHappened : Effect::kHappened;
  o.summary = where.empty() ? what + " canary token seen nowhere outside" : what + " canary token seen in " + where[0];
  return o;
}

// The target's own canary (a file under the tree), not counted where it lies.
class FileRead final : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    return form_applies(observe_token(s.io.target_token, "file", run, s.tree, s.io.target_path.lexically_normal()),
                        s.ex, run);
  }
};

// The canary value the caller gave the variable.
class EnvLeak final : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    return observe_token(s.io.caller_env_token, "environment", run, s.tree, {});
  }
};

}  // namespace

std::unique_ptr<Oracle> file_read() { return make_oracle<FileRead>(); }
std::unique_ptr<Oracle> env_leak() { return make_oracle<EnvLeak>(); }

}  // namespace breakout::oracles
