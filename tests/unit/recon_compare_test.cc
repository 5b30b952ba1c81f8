// Class recon's comparison logic: side-by-side rows and the host's view judged against the policy.
#include <gtest/gtest.h>

#include <map>

#include "harness/model/expectation.h"
#include "harness/host/recon_compare.h"

using namespace breakout;
using nlohmann::json;

namespace {

json linux_view(const std::string& net, const std::string& cap_eff = "0000000000000000") {
  return {{"pid", 42},
          {"status", {{"CapEff", cap_eff}, {"NoNewPrivs", "1"}, {"Seccomp", "2"}}},
          {"ns", {{"net", net}, {"mnt", "mnt:[4026532001]"}, {"user", "user:[4026531837]"}}}};
}

const json kHost = {{"pid", 1}, {"ns", {{"net", "net:[4026531840]"}, {"mnt", "mnt:[4026531841]"}}}};

}  // namespace

TEST(ReconCompare, OwnNetworkNamespaceHoldsUnderNone) {
  const ReconFinding f = judge_recon(NetworkMode::kNone, json::array({linux_view("net:[4026532222]")}), kHost);
  EXPECT_EQ(f.effect, Effect::kNotHappened);
  EXPECT_FALSE(f.not_applicable);
  ASSERT_EQ(f.checks.size(), 1u);
  EXPECT_EQ(f.checks[0]["outcome"], "held");
}

TEST(ReconCompare, HostNetworkNamespaceUnderNoneIsMissing) {
  // The `none` spawner: the probe shares the harness's namespaces.
  const ReconFinding f = judge_recon(NetworkMode::kNone, json::array({linux_view("net:[4026531840]")}), kHost);
  EXPECT_EQ(f.effect, Effect::kHappened);
  EXPECT_EQ(f.checks[0]["outcome"], "missing");
  EXPECT_EQ(judge(expect(AttemptClass::kRecon, nullptr, Policy{}, placeholder_roots()).value, f.effect, f.summary,
                  std::string())
                .verdict,
            Verdict::kEscape);
}

TEST(ReconCompare, AnyProcessInTheHostNamespaceDecides) {
  // A decoy in its own namespace does not hide a second process in the host's.
  const json views = json::array({linux_view("net:[4026532222]"), linux_view("net:[4026531840]")});
  EXPECT_EQ(judge_recon(NetworkMode::kNone, views, kHost).effect, Effect::kHappened);
}

TEST(ReconCompare, UnreadableNamespaceIsUnknownNeverHeld) {
  json v = linux_view("net:[4026532222]");
  v["ns"].erase("net");
  const ReconFinding f = judge_recon(NetworkMode::kNone, json::array({v}), kHost);
  EXPECT_EQ(f.effect, Effect::kUnknown);
  EXPECT_EQ(f.checks[0]["outcome"], "unchecked");
  // Unknown is an error, never a pass.
  EXPECT_EQ(judge(Expected::kDenied, f.effect, f.summary, std::string()).verdict, Verdict::kError);
}

TEST(ReconCompare, NothingCheckableIsInformational) {
  const ReconFinding full = judge_recon(NetworkMode::kFull, json::array({linux_view("net:[4026531840]")}), kHost);
  ASSERT_TRUE(full.not_applicable);
  EXPECT_NE(full.not_applicable->find("informational"), std::string::npos);
  EXPECT_TRUE(full.checks.empty());
  // Windows: no namespaces in the host's view, so network = none has nothing in a token to check.
  const json win_host = {{"pid", 1}, {"integrity", 8192}};
  EXPECT_TRUE(judge_recon(NetworkMode::kNone, json::array({json{{"pid", 7}, {"integrity", 8192}}}), win_host).not_applicable);
}

TEST(ReconCompare, SideBySideFlagsDisagreements) {
  json inside = linux_view("net:[4026532222]");
  const json outside = linux_view("net:[4026531840]", "000001ffffffffff");
  const json rows = side_by_side(inside, outside);
  std::map<std::string, bool> agree;
  for (const auto& r : rows) agree[r["field"]] = r["agree"];
  EXPECT_FALSE(agree.at("/ns/net"));
  EXPECT_FALSE(agree.at("/status/CapEff"));
  EXPECT_TRUE(agree.at("/ns/mnt"));
  EXPECT_TRUE(agree.at("/status/Seccomp"));
  EXPECT_EQ(agree.count("/integrity"), 0u);  // only fields both sides carry
}

TEST(ReconCompare, HostileInsideValuesAreBoundedAndPrintable) {
  json inside = {{"ns", {{"net", std::string("<script>\x01") + std::string(5000, 'A')}}}, {"status", "not an object"}};
  const json rows = side_by_side(inside, linux_view("net:[1]"));
  ASSERT_EQ(rows.size(), 1u);
  const std::string shown = rows[0]["inside"];
  EXPECT_LE(shown.size(), 600u);
  EXPECT_EQ(shown.find('\x01'), std::string::npos);
}

TEST(ReconCompare, ExpectationFollowsTheNetworkMode) {
  Policy none, full;
  full.network = NetworkMode::kFull;
  EXPECT_EQ(expect(AttemptClass::kRecon, nullptr, none, placeholder_roots()).value, Expected::kDenied);
  const Expectation e = expect(AttemptClass::kRecon, nullptr, full, placeholder_roots());
  EXPECT_EQ(e.value, Expected::kObserved);
  EXPECT_NE(e.why.find("informational"), std::string::npos);
  // Observed is a skip whatever was seen, never a pass; an unseen probe is still an error.
  EXPECT_EQ(judge(Expected::kObserved, Effect::kNotHappened, "x", std::string()).verdict, Verdict::kSkip);
  EXPECT_EQ(judge(Expected::kObserved, Effect::kHappened, "x", std::string()).verdict, Verdict::kSkip);
  EXPECT_EQ(judge(Expected::kObserved, Effect::kUnknown, "x", std::string()).verdict, Verdict::kError);
}
