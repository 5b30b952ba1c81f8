// Class recon: watch for the holding probe from the host, read its confinement, judge it against the policy.
//
// The probe's report (its own view) is put beside the host's view row by row; a
// disagreement is flagged (a sandbox lying to its process, or a probe lying) and never
// decides. The verdict comes from the host's view and the policy (host/recon_compare.h).
#include <atomic>
#include <fstream>
#include <thread>

#include "harness/attempt/oracle.h"
#include "harness/classes/recon/judge.h"
#include "harness/core/text.h"
#include "harness/host/process_view.h"
#include "harness/host/recon_compare.h"

namespace breakout::oracles {

namespace {

constexpr const char* kReconImage = "breakout-probe-recon";
constexpr std::chrono::milliseconds kReconPoll{10};

// While the spawn runs, polls the host every 10 ms for the probe's processes
// (host/process_view.h), reads them once found and creates `release`, which ends the
// probe's --hold-ms wait. Bounded by `limit`; finish() stops and joins.
class ReconWatch {
 public:
  ReconWatch(const Containment& box, std::filesystem::path release, std::chrono::milliseconds limit);
  ~ReconWatch();  // finish(); never throws
  ReconWatch(const ReconWatch&) = delete;
  ReconWatch& operator=(const ReconWatch&) = delete;
  // The views read (an empty array when the probe was never seen alive).
  const nlohmann::json& finish();
  int polls() const { return polls_; }

 private:
  std::atomic<bool> stop_{false};
  nlohmann::json views_ = nlohmann::json::array();
  int polls_ = 0;
  std::thread thread_;
};

ReconWatch::ReconWatch(const Containment& box, std::filesystem::path release, std::chrono::milliseconds limit)
    : thread_([this, &box, release = std::move(release), limit] {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!stop_.load() && std::chrono::steady_clock::now() < deadline) {
          ++polls_;
          nlohmann::json views = read_probe_processes(box, kReconImage);
          if (!views.empty()) {
            views_ = std::move(views);
            std::ofstream(release) << "read\n";  // ends the probe's hold early
            return;
          }
          std::this_thread::sleep_for(kReconPoll);
        }
      }) {}

ReconWatch::~ReconWatch() { finish(); }

const nlohmann::json& ReconWatch::finish() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  return views_;
}

// The outside views against the policy (host/recon_compare.h), the probe's report beside
// them; the in-run control is that the probe was seen alive at all.
Observation observe_recon(const Execution& ex, const LaunchResult& run, ReconWatch& watch) {
  const nlohmann::json& views = watch.finish();  // joined: polls() and the views are settled
  const int polls = watch.polls();
  Observation o;
  const nlohmann::json host = read_own_process();
  o.evidence["found_alive"] = !views.empty();
  o.evidence["polls"] = polls;
  o.evidence["outside"] = views;
  o.evidence["host"] = host;
  if (views.empty()) {
    // The in-run control: a probe nobody saw (broken, or blocked by a sandbox that blocks
    // everything) proves nothing, whatever the policy says.
    o.summary = "the recon probe was never seen alive from the host (probe broken, or the sandbox kept it from running)";
    return o;  // Effect::kUnknown: error
  }
  const nlohmann::json inside = parse_probe_report(run.out);
  const nlohmann::json rows = side_by_side(inside, views[0]);
  nlohmann::json disagree = nlohmann::json::array();
  for (const auto& r : rows)
    if (!r["agree"].get<bool>()) disagree.push_back(r["field"]);
  o.evidence["side_by_side"] = rows;
  o.evidence["disagreements"] = disagree;
  ReconFinding f = judge_recon(ex.policy->network, views, host);
  o.evidence["checks"] = f.checks;
  std::string note;
  if (!inside.is_object() || inside.contains("unparsed")) note = "; no probe report to compare with";
  else if (!disagree.empty()) note = "; the probe's report DISAGREES with the host's view on " + disagree.dump();
  else note = "; the probe's report agrees with the host's view on " + std::to_string(rows.size()) + " fields";
  o.effect = f.effect;
  o.in_run_control = "";
  o.summary = f.summary + note;
  if (f.not_applicable) o.not_applicable = *f.not_applicable + note;
  return o;
}

class Recon final : public Oracle {
 public:
  std::optional<Skip> before_exec(Scene& s, SpawnSession*) override {
    watch_.emplace(s.box, s.io.mark, s.limits.timeout.value_or(s.ctx.safety_cap));
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult& run) override { return observe_recon(s.ex, run, *watch_); }

 private:
  std::optional<ReconWatch> watch_;
};

}  // namespace

std::unique_ptr<Oracle> recon() { return make_oracle<Recon>(); }

}  // namespace breakout::oracles
