// Windows command-line quoting: the documented CommandLineToArgvW/C-runtime rules, and round trips (also built into breakout_win_tests).
#include <gtest/gtest.h>

#include <random>

#include "harness/core/error.h"
#include "tests/unit/error_code.h"
#include "harness/core/win_cmdline.h"

using namespace breakout;

using breakout::test_util::code_of;

// Microsoft Learn, "Parsing C++ command-line arguments": the table of examples.
TEST(WinCmdline, SplitsTheDocumentedExamples) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_windows_command_line(R"(p "abc" d e)"), (V{"p", "abc", "d", "e"}));
  EXPECT_EQ(split_windows_command_line(R"(p a\\b d"e f"g h)"), (V{"p", R"(a\\b)", "de fg", "h"}));
  EXPECT_EQ(split_windows_command_line(R"(p a\\\"b c d)"), (V{"p", R"(a\"b)", "c", "d"}));
  EXPECT_EQ(split_windows_command_line(R"(p a\\\\"b c" d e)"), (V{"p", R"(a\\b c)", "d", "e"}));
  EXPECT_EQ(split_windows_command_line(R"(p a"b"" c d)"), (V{"p", R"(ab" c d)"}));
}

// The program name: quotes group, backslashes are literal, even before a quote.
TEST(WinCmdline, ProgramNameIgnoresBackslashEscapes) {
  EXPECT_EQ(split_windows_command_line(R"("C:\Program Files\x\" y)")[0], R"(C:\Program Files\x\)");
  EXPECT_EQ(quote_windows_program(R"(C:\Program Files\x\)"), R"("C:\Program Files\x\")");
  EXPECT_EQ(quote_windows_program("C:\\bin\\a.exe"), "C:\\bin\\a.exe");
  EXPECT_EQ(quote_windows_program(""), "\"\"");
  EXPECT_EQ(code_of([] { quote_windows_program("a\"b"); }), "bad-argv0");
}

TEST(WinCmdline, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(quote_windows_arg("plain"), "plain");
  EXPECT_EQ(quote_windows_arg(R"(C:\dir\)"), R"(C:\dir\)");  // no quote follows: literal
  EXPECT_EQ(quote_windows_arg(""), R"("")");
  EXPECT_EQ(quote_windows_arg("a b"), R"("a b")");
  EXPECT_EQ(quote_windows_arg(R"(C:\a b\)"), R"("C:\a b\\")");  // trailing backslash doubled before the closing quote
  EXPECT_EQ(quote_windows_arg(R"(say "hi")"), R"("say \"hi\"")");
  EXPECT_EQ(quote_windows_arg(R"(a\"b)"), R"("a\\\"b")");  // 1 backslash + quote -> 3 + quote
  EXPECT_EQ(code_of([] { build_windows_command_line({"p", std::string("a\0b", 3)}); }), "bad-argv");
}

TEST(WinCmdline, RoundTripsHostileArguments) {
  const std::vector<std::string> argv = {"C:\\x y\\p.exe", "", " ", "\t", "\"", "\\", "\\\\\"", "a\\\\", "\"\"",
                                         "a b\\", "x\ny", "ünï cødé", "%PATH%", "^&|<>", "--flag=\"v w\"\\"};
  EXPECT_EQ(split_windows_command_line(build_windows_command_line(argv)), argv);
}

// Random arguments over the characters the rules care about.
TEST(WinCmdline, RoundTripsRandomArguments) {
  std::mt19937 rng(7);
  const std::string alphabet = "ab \t\\\"";
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::string> argv = {"prog"};
    const int n = static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) {
      std::string a;
      const int len = static_cast<int>(rng() % 8);
      for (int j = 0; j < len; ++j) a += alphabet[rng() % alphabet.size()];
      argv.push_back(a);
    }
    const std::string cmd = build_windows_command_line(argv);
    ASSERT_EQ(split_windows_command_line(cmd), argv) << cmd;
  }
}
