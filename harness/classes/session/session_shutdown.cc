// session-shutdown: several execs at once, then shutdown while they run: every heartbeat must stop.
#include <algorithm>
#include <future>
#include <thread>

#include "harness/classes/session/judge.h"
#include "harness/classes/session/session_check.h"
#include "harness/core/error.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class SessionShutdown final : public SessionCheck {
 public:
  // The whole check runs here, the execs joined before it returns: their threads hold the
  // session, which must not outlive them (the oracle outlives the session in run_attempt).
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to shut down");
    const int wanted = s.attempt().param.empty() ? 3 : std::stoi(s.attempt().param);
    const int execs = std::clamp(std::min(wanted, s.ctx.spawner->concurrent_execs()), 1, 8);
    std::vector<fs::path> beats;
    std::vector<std::future<LaunchResult>> running;
    for (int i = 0; i < execs; ++i) {
      beats.push_back(s.io.heartbeat.string() + "-" + std::to_string(i));
      SpawnRequest r = s.request;
      for (auto& a : r.probe_argv)
        if (a == s.io.heartbeat.string()) a = beats.back().string();
      running.push_back(std::async(std::launch::async, [session, r, &limits = s.limits] { return session->exec(r, limits); }));
    }
    // In-run control: every exec is running (beating) before the shutdown.
    const auto deadline = Clock::now() + 5s;
    auto all_beating = [&] {
      for (const auto& b : beats)
        if (count_lines(b) < 3) return false;
      return true;
    };
    while (!all_beating() && Clock::now() < deadline) std::this_thread::sleep_for(25ms);
    Observation& o = seen_;
    o.evidence["concurrent_execs"] = execs;
    o.in_run_control = all_beating() ? "" : "not every exec was running before the shutdown (heartbeats missing)";
    shutdown_into(*session, o.evidence);
    std::this_thread::sleep_for(s.ctx.settle);
    std::vector<std::size_t> at;
    for (const auto& b : beats) at.push_back(count_lines(b));
    std::this_thread::sleep_for(s.ctx.heartbeat_grace);
    std::vector<int> survivors;
    for (std::size_t i = 0; i < beats.size(); ++i)
      if (count_lines(beats[i]) > at[i]) survivors.push_back(static_cast<int>(i));
    session->close();  // the driver goes; execs still waiting return
    nlohmann::json results = nlohmann::json::array();
    for (auto& f : running) results.push_back(describe_exec(f.get()));
    o.evidence["execs"] = results;
    o.evidence["execs_still_beating_after_shutdown"] = survivors;
    o.effect = survivors.empty() ? Effect::kNotHappened : Effect::kHappened;
    o.summary = survivors.empty() ? "every exec's heartbeat stopped with the shutdown"
                                  : std::to_string(survivors.size()) + " of " + std::to_string(execs) +
                                        " concurrent execs kept running after the shutdown answer";
    if (o.evidence["shutdown"] != "ok" && survivors.empty())
      o.in_run_control = "shutdown failed: " + o.evidence["shutdown"].get<std::string>();
    s.rec.evidence["spawner"] = session->evidence();
    return {};
  }

  Observation observe(Scene&, const LaunchResult&) override { return std::move(seen_); }

 private:
  Observation seen_;
};

}  // namespace

std::unique_ptr<Oracle> session_shutdown() { return make_oracle<SessionShutdown>(); }

}  // namespace breakout::oracles
