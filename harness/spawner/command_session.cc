// The session of command-line spawners: no boot, one planned command per exec, no shutdown.
#include "harness/spawner/spawner.h"

#include <mutex>
#include <set>

namespace breakout {

namespace {

class CommandSession final : public SpawnSession {
 public:
  CommandSession(const Spawner& spawner, Containment* box, const std::atomic<bool>* cancel)
      : spawner_(spawner), box_(box), cancel_(cancel) {}

  LaunchResult exec(const SpawnRequest& request, const LaunchSpec& limits) override {
    // Per-exec variables are part of what the caller hands the spawner; a
    // repeated name is appended as a second entry (getenv(3) takes the first).
    SpawnRequest with_env = request;
    std::vector<std::string> repeats;
    std::set<std::string> overridden;
    for (const auto& [name, value] : request.env_overrides) {
      if (!overridden.insert(name).second) repeats.push_back(name + "=" + value);
      else with_env.caller_env[name] = value;
    }
    const SpawnPlan plan = spawner_.plan(with_env);
    LaunchSpec spec = limits;
    spec.argv = plan.argv;
    spec.env = plan.env;
    spec.env.insert(spec.env.end(), repeats.begin(), repeats.end());
    spec.cwd = plan.cwd;
    {
      std::lock_guard lock(mu_);
      command_ = plan.argv;
    }
    return run_process(spec, box_, cancel_);
  }

  std::vector<std::string> command_line() const override {
    std::lock_guard lock(mu_);
    return command_;
  }
  void shutdown() override {}

 private:
  const Spawner& spawner_;
  Containment* box_;
  const std::atomic<bool>* cancel_;
  mutable std::mutex mu_;
  std::vector<std::string> command_;
};

}  // namespace

std::unique_ptr<SpawnSession> Spawner::open(const SpawnRequest&, const LaunchSpec&, Containment* box,
                                            const std::atomic<bool>* cancel) const {
  return std::make_unique<CommandSession>(*this, box, cancel);
}

// Only drivers with capability fs have a file API; the planner skips fs-api attempts elsewhere.
void SpawnSession::write_file(const std::string&, const std::string&) {
  throw Error("no-fs-api", "this spawner has no file-system API");
}
std::string SpawnSession::read_file(const std::string&) { throw Error("no-fs-api", "this spawner has no file-system API"); }

}  // namespace breakout
