// Colour in the terminal summary (report/color.h): when it is on, and that only escapes and overblocks get it.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/report/color.h"
#include "harness/report/results.h"

using namespace breakout;

TEST(ColorEnabled, AutoFollowsTheTerminalAndNoColor) {
  EXPECT_TRUE(color_enabled(ColorMode::kAuto, true, nullptr, "xterm-256color"));
  EXPECT_FALSE(color_enabled(ColorMode::kAuto, false, nullptr, "xterm"));  // a file or a pipe
  EXPECT_FALSE(color_enabled(ColorMode::kAuto, true, "1", "xterm"));        // NO_COLOR set
  EXPECT_TRUE(color_enabled(ColorMode::kAuto, true, "", "xterm"));          // set but empty: no-color.org ignores it
  EXPECT_FALSE(color_enabled(ColorMode::kAuto, true, nullptr, "dumb"));
}

TEST(ColorEnabled, AnExplicitModeWins) {
  EXPECT_TRUE(color_enabled(ColorMode::kAlways, false, "1", "dumb"));
  EXPECT_FALSE(color_enabled(ColorMode::kNever, true, nullptr, "xterm"));
  EXPECT_EQ(parse_color_mode("always"), ColorMode::kAlways);
  EXPECT_EQ(parse_color_mode("never"), ColorMode::kNever);
  EXPECT_EQ(parse_color_mode("auto"), ColorMode::kAuto);
  EXPECT_EQ(parse_color_mode("yes"), std::nullopt);
}

TEST(SummaryColor, OnlyEscapesAndOverblocksArePaintedAndOnlyWhenAsked) {
  RunInfo info;
  info.suite = "default";
  info.spawner = "none";
  std::vector<AttemptRecord> records(3);
  records[0].id = "a@p", records[0].verdict = Verdict::kEscape;
  records[1].id = "b@p", records[1].verdict = Verdict::kOverblock;
  records[2].id = "c@p", records[2].verdict = Verdict::kPass;
  std::ostringstream plain, painted;
  print_summary(plain, info, records, "out", false);
  print_summary(painted, info, records, "out", true);
  EXPECT_EQ(plain.str().find('\033'), std::string::npos) << plain.str();
  EXPECT_NE(painted.str().find("\033[1;31mescape   \033[0m a@p"), std::string::npos) << painted.str();
  EXPECT_NE(painted.str().find("\033[33moverblock\033[0m b@p"), std::string::npos) << painted.str();
  EXPECT_NE(painted.str().find("\033[1;31m1 escape\033[0m"), std::string::npos) << painted.str();
  EXPECT_EQ(paint_verdict("pass", "pass", true), "pass");
  // Without the escape codes both summaries are the same text: colour never shifts a column.
  std::string stripped = painted.str();
  for (std::size_t at; (at = stripped.find('\033')) != std::string::npos;) stripped.erase(at, stripped.find('m', at) - at + 1);
  EXPECT_EQ(stripped, plain.str());
}
