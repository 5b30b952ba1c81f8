// Hostile output in reports: no markup injection in junit.xml, no invalid UTF-8 in results.json.
#include <gtest/gtest.h>

#include "harness/core/text.h"
#include "harness/report/results.h"

using namespace breakout;

TEST(Text, PrintableExcerptEscapesControlAndHighBytes) {
  const std::string raw = std::string("ok\x1b[31mred\xff\xfe") + '\0' + "end";
  const std::string e = printable_excerpt(raw, 100);
  EXPECT_EQ(e.find('\x1b'), std::string::npos);
  EXPECT_NE(e.find("\\x1b"), std::string::npos);
  EXPECT_NE(e.find("\\xff"), std::string::npos);
  EXPECT_NE(e.find("\\x00"), std::string::npos);
  EXPECT_EQ(printable_excerpt(std::string(5000, 'a'), 10), "aaaaaaaaaa...[4990 more bytes]");
}

TEST(Text, Glob) {
  EXPECT_TRUE(glob_match("fs.write.*", "fs.write.create"));
  EXPECT_TRUE(glob_match("*@workspace-write*", "fs.read.secrets@workspace-write[fs:~/x]"));
  EXPECT_FALSE(glob_match("fs.read.*", "fs.write.create"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
}

TEST(Report, JunitEscapesHostileText) {
  AttemptRecord r;
  r.id = "x@p[fs:sibling/a]";
  r.attempt_id = "x";
  r.policy = "p";
  r.target = "fs:<script>";
  r.verdict = Verdict::kEscape;
  r.reason = printable_excerpt("</failure><script>alert(1)</script>&\"'", 200);
  RunInfo info;
  info.suite = "s";
  info.spawner = "none";
  const std::string xml = junit_xml(info, {r});
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_NE(xml.find("&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(xml.find("</failure><"), xml.rfind("</failure><"));  // only our own closing tag
}

TEST(Report, ExitStatusRules) {
  AttemptRecord pass, skip, esc, over;
  pass.verdict = Verdict::kPass;
  skip.verdict = Verdict::kSkip;
  esc.verdict = Verdict::kEscape;
  over.verdict = Verdict::kOverblock;
  EXPECT_EQ(run_exit_status({pass, skip}), 0);
  EXPECT_EQ(run_exit_status({pass, over}), 1);
  EXPECT_EQ(run_exit_status({over, esc}), 3);
}

TEST(Report, ResultsJsonSurvivesInvalidUtf8) {
  AttemptRecord r;
  r.verdict = Verdict::kPass;
  r.evidence["raw"] = std::string("\xff\xfe bad");  // should never happen, but must not crash the writer
  RunInfo info;
  const auto j = results_json(info, {r});
  EXPECT_NO_THROW((void)j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  EXPECT_EQ(j["summary"]["pass"], 1);
}
