// Display text helpers (core/text.h): what reaches a terminal, a report or a summary.
#include <gtest/gtest.h>

#include <string>

#include "harness/core/text.h"

using breakout::ascii_lower;
using breakout::shorten;

TEST(Shorten, LeavesAShortTextAlone) { EXPECT_EQ(shorten("short reason", 300), "short reason"); }

TEST(Shorten, CutsAtTheLastSpaceNeverMidWord) {
  const std::string reason = "control net.tcp@workspace-write[net:unix-workspace] was overblock, so this denial proves nothing";
  const std::string s = shorten(reason, 70);
  ASSERT_GE(s.size(), 5u);
  const std::string kept = s.substr(0, s.size() - std::string(" …").size());
  EXPECT_EQ(s, kept + " …");
  EXPECT_LE(kept.size(), 70u);
  EXPECT_EQ(reason.rfind(kept, 0), 0u);  // a prefix of the reason
  EXPECT_EQ(reason[kept.size()], ' ');   // ending where a word ends
  EXPECT_EQ(kept, "control net.tcp@workspace-write[net:unix-workspace] was overblock, so");
}

TEST(Shorten, WithoutASpaceCutsAtTheLimitOutsideAUtf8Sequence) {
  EXPECT_EQ(shorten(std::string(100, 'x'), 10), std::string(10, 'x') + " …");
  const std::string text = "abcdefghi\xE2\x80\xA6tail";  // an ellipsis straddling byte 10
  EXPECT_EQ(shorten(text, 10), "abcdefghi …");
}

TEST(AsciiLower, FoldsOnlyAsciiLetters) { EXPECT_EQ(ascii_lower(".GiT/Config-\xC3\x89"), ".git/config-\xC3\x89"); }
