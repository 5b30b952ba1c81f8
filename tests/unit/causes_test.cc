// Findings grouped by cause: one failed control's denials are one cause; different evidence,
// class or policy stays apart; the report shows causes, the profile's notes and the argv, escaped.
#include <gtest/gtest.h>

#include "harness/report/causes.h"
#include "harness/report/html_report.h"

using namespace breakout;

namespace {

AttemptRecord finding(const std::string& attempt, const std::string& target, Verdict v, const std::string& reason,
                      const std::string& policy = "workspace-write") {
  AttemptRecord r;
  r.attempt_id = attempt;
  r.group = attempt + "@" + policy;
  r.target = target;
  r.id = r.group + "[" + target + "]";
  r.klass = "net-connect";
  r.policy = policy;
  r.verdict = v;
  r.role = "deny";
  r.controls = {r.group + "[net:unix-workspace]"};
  r.reason = reason;
  return r;
}

std::string failed_control(const AttemptRecord& r, const std::string& listener) {
  return "control " + r.controls[0] + " was overblock, so this denial proves nothing (listener " + listener +
         " never received the nonce)";
}

}  // namespace

TEST(Causes, OneFailedControlIsOneCause) {
  std::vector<AttemptRecord> rs;
  for (const auto& [attempt, target] : std::vector<std::pair<std::string, std::string>>{
           {"net.tcp", "tcp4-loopback"}, {"net.tcp", "tcp6-loopback"}, {"net.udp", "udp4-external"}}) {
    rs.push_back(finding(attempt, "net:" + target, Verdict::kError, ""));
    rs.back().reason = failed_control(rs.back(), target);
  }
  // Another verdict, another policy, another evidence: three more causes.
  rs.push_back(finding("net.tcp", "net:tcp4-external", Verdict::kEscape, "listener tcp4-external received the nonce"));
  rs.push_back(finding("net.tcp", "net:tcp4-loopback", Verdict::kError, "", "network-full"));
  rs.back().reason = failed_control(rs.back(), "tcp4-loopback");
  rs.push_back(finding("net.tcp", "net:tcp4-host", Verdict::kError, "could not observe: listener down"));
  std::vector<const AttemptRecord*> in;
  for (const auto& r : rs) in.push_back(&r);
  const auto causes = group_by_cause(in);
  ASSERT_EQ(causes.size(), 4u);
  EXPECT_EQ(causes[0].ids, (std::vector<std::string>{rs[0].id, rs[1].id, rs[2].id}));
  EXPECT_EQ(causes[0].signature,
            "control <control> was overblock, so this denial proves nothing (listener <target> never received the nonce)");
  EXPECT_EQ(causes[1].verdict, "escape");
  EXPECT_EQ(causes[2].policy, "network-full");
  EXPECT_EQ(causes[3].ids, std::vector<std::string>{rs[5].id});
}

TEST(Causes, NumbersAndNoncesDoNotSplitACause) {
  auto a = finding("lifetime.x", "", Verdict::kEscape, "heartbeat advanced from 402 to 462 beats (nonce 3f9c2a71be00)");
  auto b = finding("lifetime.y", "", Verdict::kEscape, "heartbeat advanced from 399 to 459 beats (nonce 0a1b2c3d4e5f)");
  EXPECT_EQ(reason_signature(a), reason_signature(b));
  EXPECT_EQ(reason_signature(a), "heartbeat advanced from N to N beats (nonce H)");
  // A word that only looks like hex stays: "deadbeefcafe" has no digit.
  auto c = finding("x", "", Verdict::kError, "deadbeefcafe");
  EXPECT_EQ(reason_signature(c), "deadbeefcafe");
}

TEST(Causes, ReportShowsCausesNotesAndArgvEscaped) {
  ReportInput in;
  in.results.info.spawner = "s";
  in.results.info.suite = "default";
  in.results.info.spawner_notes = "- <script>alert(1)</script> by design";
  for (const char* t : {"tcp4-loopback", "tcp6-loopback"}) {
    auto r = finding("net.tcp", std::string("net:") + t, Verdict::kError, "");
    r.reason = failed_control(r, t);
    r.spawner_argv = {"sbx", "--flag=<b>", "probe"};
    in.results.records.push_back(r);
  }
  const std::string html = html_report(in);
  EXPECT_NE(html.find("Findings by cause (1 causes, 2 findings)"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&#39;sbx&#39; &#39;--flag=&lt;b&gt;&#39; &#39;probe&#39;"), std::string::npos);
  const std::string md = markdown_summary(in);
  EXPECT_NE(md.find("### Findings (2, 1 cause)"), std::string::npos) << md;
  EXPECT_NE(md.find("**error** ×2"), std::string::npos) << md;
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("### What the profile says s cannot do, or does by design"), std::string::npos);
  EXPECT_NE(md.find("&lt;script&gt;"), std::string::npos);
}
