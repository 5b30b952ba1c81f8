// The lifetime judges of classes/lifetime/heartbeat.cc (lifetime, timeout-kill): the probe's beater
// still beating after the spawner returned or was killed, driven through run_attempt.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

class Heartbeat : public ::testing::Test {
 protected:
  Heartbeat() {
    j.spawner.on_close = [this] { beater.stop(); };  // the harness lets go of the box after judging
  }
  // The sandbox left a process beating behind (it outlives the exec).
  ExecScript leaves_beater(LaunchResult answer) {
    return [this, answer](const SpawnRequest& r, const LaunchSpec&) {
      beater.start(arg(r, "--heartbeat"));
      return answer;
    };
  }
  // The beater beat and was killed with the probe's tree.
  static ExecScript beat_then_died(LaunchResult answer) {
    return [answer](const SpawnRequest& r, const LaunchSpec&) {
      for (int i = 0; i < 3; ++i) append_text(arg(r, "--heartbeat"), "beat\n");
      return answer;
    };
  }

  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt lifetime = attempt("lifetime", {"--technique", "background", "--heartbeat", "{heartbeat}"});
  const Attempt timeout = attempt("timeout-kill", {"--heartbeat", "{heartbeat}", "--children", "2"});
  Beater beater;  // declared after j: stopped (at the latest) before the work root goes
};

TEST_F(Heartbeat, ABeaterStillBeatingAfterTheSpawnerReturnedIsAnEscape) {
  j.spawner.on_exec = leaves_beater(exited(0));
  const AttemptRecord r = j.run(lifetime, ws);
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_LT(r.evidence["heartbeats_at_return"].get<int>(), r.evidence["heartbeats_after_grace"].get<int>());
}

TEST_F(Heartbeat, ABeaterThatStoppedWithTheSpawnIsAPass) {
  j.spawner.on_exec = beat_then_died(exited(0));
  const AttemptRecord r = j.run(lifetime, ws);
  EXPECT_VERDICT(r, Verdict::kPass);
  EXPECT_EQ(r.evidence["heartbeats_at_return"], 3);
}

TEST_F(Heartbeat, ABeaterThatNeverStartedIsAnErrorNeverAPass) {
  const AttemptRecord r = j.run(lifetime, ws);
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("heartbeat never started"), std::string::npos) << r.reason;
}

TEST_F(Heartbeat, AnUnavailableTechniqueWithNoBeatIsASkip) {
  const Attempt wmi = attempt("lifetime", {"--technique", "wmi", "--heartbeat", "{heartbeat}"});
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) {
    return exited(1, report_line({{"technique_state", "unavailable"}, {"technique_reason", "no WMI provider"}}));
  };
  const AttemptRecord r = j.run(wmi, ws);
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("no WMI provider"), std::string::npos) << r.reason;
}

TEST_F(Heartbeat, TimeoutKillSurvivedIsAnEscape) {
  j.spawner.on_exec = leaves_beater(timed_out());
  EXPECT_VERDICT(j.run(timeout, ws), Verdict::kEscape);
}

TEST_F(Heartbeat, TimeoutKillThatKilledTheTreeIsAPass) {
  j.spawner.on_exec = beat_then_died(timed_out());
  EXPECT_VERDICT(j.run(timeout, ws), Verdict::kPass);
}

TEST_F(Heartbeat, TimeoutKillWhoseProbeReturnedBeforeTheTimeoutIsAnError) {
  j.spawner.on_exec = beat_then_died(exited(0));
  const AttemptRecord r = j.run(timeout, ws);
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("did not hang until the timeout"), std::string::npos) << r.reason;
}

TEST_F(Heartbeat, TimeoutKillRaisesTheTimeoutUntilTheBeaterStarted) {
  // Round 0 killed before the beater started; round 1 (timeout doubled, a fresh heartbeat file) beats.
  std::vector<std::string> beats;
  std::vector<long long> timeouts;
  j.spawner.on_exec = [&](const SpawnRequest& r, const LaunchSpec& l) {
    beats.push_back(arg(r, "--heartbeat"));
    timeouts.push_back(l.timeout->count());
    if (beats.size() == 1) return timed_out();
    return beat_then_died(timed_out())(r, l);
  };
  const AttemptRecord r = j.run(timeout, ws);
  EXPECT_VERDICT(r, Verdict::kPass);
  ASSERT_EQ(beats.size(), 2u);
  EXPECT_EQ(beats[1], beats[0] + "-r1");
  EXPECT_EQ(timeouts[1], 2 * timeouts[0]);
  EXPECT_EQ(r.evidence["timeout_rounds"].size(), 2u);
}

}  // namespace
}  // namespace breakout::judges
