// Oracles of lifetime and timeout-kill: the probe's beater still beating after the spawner returned or was killed.
#include <thread>

#include "harness/attempt/excuse.h"
#include "harness/attempt/oracle.h"
#include "harness/classes/lifetime/judge.h"
#include "harness/platform/scheduled_task.h"

namespace breakout::oracles {

namespace {

class Heartbeat final : public Oracle {
 public:
  // timeout-kill's in-run control: the probe hung until the timeout killed it.
  explicit Heartbeat(bool until_timeout) : until_timeout_(until_timeout) {}

  // spawn-escape --technique schtasks registers a task outside every box: the guard removes
  // it also when the attempt unwinds (host safety).
  std::optional<Skip> prepare(Scene& s) override {
    if (technique_of(s.attempt()) == "schtasks") task_.emplace("breakout-" + s.tag());
    return std::nullopt;
  }

  // timeout-kill asks for a fixed timeout (1.5 s in lifetime.toml), but a spawner's start-up is
  // its own: srt starts its proxies and bubblewrap in 2-4 s on two loaded cores, Codex in 1-1.3 s.
  // Killed before the probe's beater started, the spawner was never tested on the tree kill; so
  // the timeout is doubled (at most four times, to 24 s: srt's start-up took over 10 s on two cores
  // at a load average of 13) until the beater has started before it fires. Each
  // round beats into its own file and is in the evidence; what a killed round left stays in the
  // box and is killed with the rest after judging.
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    if (!until_timeout_) return Oracle::exec(s, session);
    nlohmann::json rounds = nlohmann::json::array();
    for (int round = 0;; ++round) {
      const LaunchResult run = Oracle::exec(s, session);
      const bool started = count_lines(s.io.heartbeat) != 0;
      rounds.push_back({{"timeout_ms", s.limits.timeout->count()}, {"timed_out", run.timed_out}, {"beater_started", started}});
      if (started || !run.timed_out || round == kMaxRaises) {
        if (round != 0) s.rec.evidence["timeout_rounds"] = rounds;
        return run;
      }
      // The next round beats into a file of its own: what the killed round left may still start.
      const std::string last = s.io.heartbeat.string();
      s.io.heartbeat += "-r" + std::to_string(round + 1);
      for (auto& a : s.request.probe_argv)
        if (a == last) a = s.io.heartbeat.string();
      s.limits.timeout = *s.limits.timeout * 2;
      if (s.request.timeout) s.request.timeout = *s.request.timeout * 2;
    }
  }

  Observation observe(Scene& s, const LaunchResult& run) override {
    const RunContext& ctx = s.ctx;
    const Containment& box = s.box;
    Observation o;
    std::this_thread::sleep_for(ctx.settle);
    const std::size_t at_return = count_lines(s.io.heartbeat);
    std::this_thread::sleep_for(ctx.heartbeat_grace);
    const std::size_t later = count_lines(s.io.heartbeat);
    o.evidence["heartbeats_at_return"] = at_return;
    o.evidence["heartbeats_after_grace"] = later;
    o.evidence["grace_ms"] = ctx.heartbeat_grace.count();
    o.evidence["processes_left_in_containment"] = box.live_count();
    o.evidence["containment"] = box.mechanism();
    const std::string technique = technique_of(s.attempt());
    const auto unavailable = technique_unavailable(s.attempt(), later, run);
    if (unavailable) o.not_applicable = *unavailable;
    else if (at_return == 0 && technique == "breakaway" && !box.allows_breakaway())
      // CREATE_BREAKAWAY_FROM_JOB needs every job around the probe to allow it, the harness's
      // own box included (Microsoft Learn, "Nested Jobs"): a refusal here may be ours, not the
      // sandbox's, so nothing is learnt about the sandbox (docs/windows.md, job escape).
      o.not_applicable = "the beater never started, and the harness's own job (" + box.mechanism() +
                         ") refuses breakaway: the refusal cannot be told from the sandbox's";
    else if (at_return == 0 && until_timeout_ && run.timed_out)
      o.in_run_control = "the spawner was killed at the timeout (" + std::to_string(s.limits.timeout->count()) +
                         " ms, raised from the attempt's) before the probe's heartbeat started: its start-up is slower";
    else if (at_return == 0) o.in_run_control = "the heartbeat never started (probe broken, or the sandbox blocked the workspace)";
    else if (until_timeout_ && !run.timed_out)
      o.in_run_control = "the probe did not hang until the timeout (spawner returned first)";
    else o.in_run_control = "";
    o.effect = later > at_return ? Effect::kHappened : Effect::kNotHappened;
    o.summary = later > at_return
                    ? "heartbeat advanced from " + std::to_string(at_return) + " to " + std::to_string(later) +
                          " beats after the spawner " + (run.timed_out ? "was killed at the timeout" : "returned")
                    : "heartbeat stopped at " + std::to_string(at_return) + " beats";
    return o;
  }

  void clean_up(Scene& s) override {
    if (task_) s.rec.evidence["scheduled_task_after_judging"] = task_->remove();
  }

 private:
  static constexpr int kMaxRaises = 4;  // 1.5 s -> 3 s -> 6 s -> 12 s -> 24 s
  bool until_timeout_;
  std::optional<ScheduledTaskGuard> task_;
};

}  // namespace

std::unique_ptr<Oracle> lifetime() { return std::make_unique<Heartbeat>(false); }
std::unique_ptr<Oracle> timeout_kill() { return std::make_unique<Heartbeat>(true); }

}  // namespace breakout::oracles
