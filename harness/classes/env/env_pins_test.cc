// The env-pinned judge of classes/env/env_pins.cc: caller overrides of what the spawner pins,
// learnt from a baseline exec, seen (or not) in the child's environment; through run_attempt.
#include <gtest/gtest.h>

#include "harness/core/text.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

// The probe env-dump under a spawner that sets the policy's pins over the caller's variables;
// with `pins_win` false the caller's overrides come last and win (AstrBot PR #9895's merge order).
// A pin that wins also drops the name's other letter cases (curl reads http_proxy first).
ExecScript env_dump(bool pins_win) {
  return [pins_win](const SpawnRequest& r, const LaunchSpec&) {
    std::map<std::string, std::string> env = r.caller_env;
    auto pin = [&] {
      for (const auto& pin : r.policy->env.pinned) {
        std::erase_if(env, [&](const auto& e) { return ascii_lower(e.first) == ascii_lower(pin.first); });
        env[pin.first] = pin.second;
      }
    };
    if (pins_win) {
      for (const auto& [k, v] : r.env_overrides) env[k] = v;
      pin();
    } else {
      pin();
      for (const auto& [k, v] : r.env_overrides) env[k] = v;
    }
    return exited(0, report_line({{"env", env}}));
  };
}

class EnvPins : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& pinning = j.policy("workspace-write");   // pins HTTP_PROXY, HTTPS_PROXY
  const Policy& plain = j.policy("workspace-protected"); // pins nothing
  const Attempt a = attempt("env-pinned");
};

TEST_F(EnvPins, ACallerOverrideOfAPinnedVariableReachingTheChildIsAnEscape) {
  j.spawner.on_exec = env_dump(false);
  const AttemptRecord r = j.run(a, pinning, "pin:exact");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(j.spawner.requests().size(), 2u);  // the baseline, then the attempt
  EXPECT_TRUE(j.spawner.requests()[0].env_overrides.empty()) << "the baseline overrides nothing";
}

TEST_F(EnvPins, PinsThatHoldAreAPassAndTheInheritedControlArrives) {
  j.spawner.on_exec = env_dump(true);
  EXPECT_VERDICT(j.run(a, pinning, "pin:both-cases"), Verdict::kPass);
  EXPECT_VERDICT(j.run(a, pinning, "pin:control"), Verdict::kPass);
}

TEST_F(EnvPins, APinOfTheExactNameOnlyLetsTheOtherCaseThrough) {
  // A spawner that pins HTTP_PROXY but passes the caller's http_proxy on (curl reads it first).
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    std::map<std::string, std::string> env = env_seen(r);
    for (const auto& [k, v] : r.policy->env.pinned) env[k] = v;
    return exited(0, report_line({{"env", env}}));
  };
  EXPECT_VERDICT(j.run(a, pinning, "pin:other-case"), Verdict::kEscape);
}

TEST_F(EnvPins, AChildThatDoesNotShowThePinnedValueCannotPass) {
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    return exited(0, report_line({{"env", r.caller_env}}));  // neither the override nor the pin
  };
  const AttemptRecord r = j.run(a, pinning, "pin:exact");
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("did not show the pinned value"), std::string::npos) << r.reason;
}

TEST_F(EnvPins, NothingPinnedIsASkip) {
  j.spawner.on_exec = env_dump(false);
  const AttemptRecord r = j.run(a, plain, "pin:exact");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("pins no variable"), std::string::npos) << r.reason;
}

TEST_F(EnvPins, APinTheSpawnerAddsIsLearntFromTheBaseline) {
  // No policy pin: the spawner itself sets a proxy variable, which the caller then overrides.
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    std::map<std::string, std::string> env = r.caller_env;
    env["ALL_PROXY"] = "socks5://127.0.0.1:9";
    for (const auto& [k, v] : r.env_overrides) env[k] = v;
    return exited(0, report_line({{"env", env}}));
  };
  const AttemptRecord r = j.run(a, plain, "pin:exact");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["pins"]["ALL_PROXY"], "learned from the baseline exec");
}

}  // namespace
}  // namespace breakout::judges
