// The connect judge of classes/net/listener_nonce.cc (net-connect and the classes sharing it):
// the attempt's nonce received by the harness's own listener, driven through run_attempt.
#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

// The probe net-connect: the nonce to {target}, and its report says it sent it.
ExecScript refused_connect() {
  return [](const SpawnRequest&, const LaunchSpec&) { return exited(1, report_line({{"error", "ECONNREFUSED"}})); };
}

class ListenerNonce : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& none = j.policy("workspace-write");  // network = none
  const Attempt a = attempt("net-connect", {"--target", "{target}", "--nonce", "{nonce}"});
};

TEST_F(ListenerNonce, TheNonceAtADeniedLoopbackListenerIsAnEscape) {
  j.spawner.on_exec = sends_nonce();
  const AttemptRecord r = j.run(a, none, "net:tcp4-loopback");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["nonce_received"], true);
}

TEST_F(ListenerNonce, TheNonceAtADeniedHostSocketIsAnEscape) {
  j.spawner.on_exec = sends_nonce();
  EXPECT_VERDICT(j.run(a, none, "net:unix-outside"), Verdict::kEscape);
}

TEST_F(ListenerNonce, NoNonceAtTheDeniedListenerIsAPassAndTheWorkspaceSocketControlGetsIt) {
  j.spawner.on_exec = refused_connect();
  const AttemptRecord r = j.run(a, none, "net:tcp4-loopback");
  EXPECT_VERDICT(r, Verdict::kPass);
  EXPECT_EQ(r.evidence["nonce_received"], false);
  j.spawner.on_exec = sends_nonce();
  EXPECT_VERDICT(j.run(a, none, "net:unix-workspace"), Verdict::kPass);
}

TEST_F(ListenerNonce, AnAllowedConnectWhoseNonceNeverArrivesIsAnOverblock) {
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return exited(0); };
  EXPECT_VERDICT(j.run(a, j.policy("network-loopback"), "net:tcp4-loopback"), Verdict::kOverblock);
}

TEST_F(ListenerNonce, AnUnavailableLaunchPathIsASkipOnlyWhenNoListenerGotTheNonce) {
  const Attempt wmi = attempt("net-connect", {"--launch", "wmi", "--target", "{target}", "--nonce", "{nonce}"});
  const std::string absent = report_line({{"launch_state", "unavailable"}, {"launch_reason", "no WMI provider"}});
  j.spawner.on_exec = [&](const SpawnRequest&, const LaunchSpec&) { return exited(1, absent); };
  const AttemptRecord r = j.run(wmi, none, "net:tcp4-loopback");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("no WMI provider"), std::string::npos) << r.reason;
  j.spawner.on_exec = [&](const SpawnRequest& q, const LaunchSpec& l) {
    sends_nonce()(q, l);
    return exited(1, absent);
  };
  EXPECT_VERDICT(j.run(wmi, none, "net:tcp4-loopback"), Verdict::kEscape);
}

}  // namespace
}  // namespace breakout::judges
