// The session of command-line spawners: no boot, one planned command per exec, no shutdown.
#include "harness/spawner/spawner.h"

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/platform/tree_mounts.h"

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
    prepare(plan);
    LaunchSpec spec = limits;
    spec.argv = plan.argv;
    spec.env = plan.env;
    spec.env.insert(spec.env.end(), repeats.begin(), repeats.end());
    spec.cwd = plan.cwd;
    // The spawner binary is found on the caller's PATH, not on one an attempt overrides.
    if (const auto path = request.caller_env.find("PATH"); path != request.caller_env.end())
      spec.lookup_path = path->second;
    {
      std::lock_guard lock(mu_);
      command_ = plan.argv;
    }
    LaunchResult run;
    try {
      run = run_process(spec, box_, cancel_);
    } catch (...) {
      after(plan, spec);
      throw;
    }
    after(plan, spec);
    run.refusal = spawner_.refusal_in(run);  // the tool's declared refusal exit: it ran nothing
    return run;
  }

  std::vector<std::string> command_line() const override {
    std::lock_guard lock(mu_);
    return command_;
  }
  void shutdown() override {}

  ~CommandSession() override {
    for (const auto& dir : scratch_) {
      std::error_code ec;
      // Never into a mount a spawner's setup or `after` left there (platform/tree_mounts.h).
      if (detach_mounts_under(dir)) std::filesystem::remove_all(dir, ec);  // best effort: a probe may have left it busy
    }
  }

 private:
  // The plan's scratch directory and files, before the launch. A file that cannot be
  // written fails the exec (Error): the tool would otherwise run on a stale or default
  // config, which is a different policy rather than a weaker one.
  void prepare(const SpawnPlan& plan) {
    namespace fs = std::filesystem;
    if (!plan.scratch_dir.empty()) {
      std::error_code ec;
      fs::create_directories(plan.scratch_dir, ec);
      if (ec) throw Error("cannot create the spawner's directory " + plan.scratch_dir + ": " + ec.message());
      std::lock_guard lock(mu_);
      scratch_.insert(plan.scratch_dir);
    }
    for (const auto& [path, text] : plan.files) {
      std::error_code ec;
      fs::create_directories(fs::path(path).parent_path(), ec);
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << text;
      out.close();
      if (!out) throw Error("cannot write the spawner's config file " + path);
    }
  }

  // The tool's own cleanup of this exec (SpawnPlan::after), whatever became of the launch: run to
  // its end even when the run is being interrupted (never with the cancel flag), within its own
  // bound. Failing fails the exec: the tool's state for it (an OCI container) may be left.
  void after(const SpawnPlan& plan, const LaunchSpec& launched) {
    if (plan.after.empty()) return;
    LaunchSpec spec;
    spec.argv = plan.after;
    spec.env = launched.env;
    spec.cwd = launched.cwd;
    spec.lookup_path = launched.lookup_path;
    spec.timeout = kAfterTimeout;
    spec.max_capture = 4096;
    const LaunchResult r = run_process(spec, box_, nullptr);
    if (!r.started || r.timed_out || !r.exited || r.exit_code != 0) {
      const std::string how = !r.started   ? "did not start: " + r.start_error
                              : r.timed_out ? "timed out"
                              : !r.exited   ? "killed by signal " + std::to_string(r.term_signal)
                                            : "exit " + std::to_string(r.exit_code);
      throw Error("the profile's after command (" + plan.after.front() + ") failed: " + how + "; " +
                  printable_excerpt(r.err, 300));
    }
  }

  static constexpr std::chrono::milliseconds kAfterTimeout{20000};
  const Spawner& spawner_;
  Containment* box_;
  const std::atomic<bool>* cancel_;
  mutable std::mutex mu_;
  std::vector<std::string> command_;
  std::set<std::string> scratch_;
};

}  // namespace

std::unique_ptr<SpawnSession> Spawner::open(const SpawnRequest&, const LaunchSpec&, Containment* box,
                                            const std::atomic<bool>* cancel) const {
  return std::make_unique<CommandSession>(*this, box, cancel);
}

// Only drivers with capability fs have a file API; the planner skips fs-api attempts elsewhere.
FsAnswer SpawnSession::write_file(const std::string&, const std::string&) {
  throw Error("no-fs-api", "this spawner has no file-system API");
}
FsAnswer SpawnSession::read_file(const std::string&) { throw Error("no-fs-api", "this spawner has no file-system API"); }

}  // namespace breakout
