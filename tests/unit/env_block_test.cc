// Environment-block codecs: POSIX envp/environ and the Windows UTF-16 block, each rule with its source.
#include <gtest/gtest.h>

#include "harness/core/env_block.h"
#include "harness/core/error.h"
#include "harness/core/wtf8.h"
#include "tests/unit/error_code.h"

using namespace breakout;
using namespace breakout::env_block;

using breakout::test_util::code_of;

// environ(7): "name=value"; the name ends at the first '=', so a value may hold '='.
TEST(EnvBlockPosix, SplitsAtTheFirstEqualsAndKeepsOrderAndDuplicates) {
  const Entries e = decode_posix({"PATH=/bin", "X=a=b", "PATH=/evil", "EMPTY="});
  const Entries want = {{"PATH", "/bin"}, {"X", "a=b"}, {"PATH", "/evil"}, {"EMPTY", ""}};
  EXPECT_EQ(e, want);
  EXPECT_EQ(encode_posix(e), (std::vector<std::string>{"PATH=/bin", "X=a=b", "PATH=/evil", "EMPTY="}));
  // getenv(3) in glibc returns the first match.
  ASSERT_NE(find_posix(e, "PATH"), nullptr);
  EXPECT_EQ(*find_posix(e, "PATH"), "/bin");
  EXPECT_EQ(find_posix(e, "path"), nullptr);  // POSIX names are case-sensitive
}

TEST(EnvBlockPosix, RefusesWhatCannotBeAVariable) {
  EXPECT_EQ(code_of([] { decode_posix({"NOEQUALS"}); }), "bad-env-entry");
  EXPECT_EQ(code_of([] { decode_posix({"=value"}); }), "bad-env-entry");
  EXPECT_EQ(code_of([] { encode_posix({{"A=B", "v"}}); }), "bad-env-name");
  EXPECT_EQ(code_of([] { encode_posix({{"", "v"}}); }), "bad-env-name");
  EXPECT_EQ(code_of([] { encode_posix({{"A", std::string("x\0y", 3)}}); }), "bad-env-value");
}

// /proc/<pid>/environ (proc(5)): entries separated and terminated by NUL.
TEST(EnvBlockPosix, EnvironBytesRoundTrip) {
  const Entries e = {{"A", "1"}, {"B", ""}, {"A", "2"}};
  const std::string bytes = encode_environ(e);
  EXPECT_EQ(bytes, std::string("A=1\0B=\0A=2\0", 11));
  EXPECT_EQ(decode_environ(bytes), e);
  EXPECT_TRUE(decode_environ("").empty());
  EXPECT_EQ(code_of([] { decode_environ("A=1"); }), "bad-env-block");
  EXPECT_EQ(code_of([] { decode_environ(std::string("A=1\0\0", 5)); }), "bad-env-entry");
}

// CreateProcessW, lpEnvironment: "name=value\0" strings; "A Unicode environment block is
// terminated by four zero bytes: two for the last string, two more to terminate the block."
TEST(EnvBlockWindows, BlockIsNulSeparatedAndDoubleNulTerminated) {
  const std::u16string block = encode_windows({{"A", "1"}, {"B", "2"}});
  EXPECT_EQ(block, std::u16string(u"A=1\0B=2\0\0", 9));
  EXPECT_EQ(windows_block_bytes(block).size(), 18u);
  EXPECT_EQ(windows_block_bytes(block).substr(14), std::string(4, '\0'));
  // No variables at all is still two NULs (four zero bytes).
  EXPECT_EQ(encode_windows({}), std::u16string(u"\0\0", 2));
  EXPECT_TRUE(decode_windows(std::u16string(u"\0\0", 2)).empty());
}

// "Changing Environment Variables" (Win32 docs): "All strings in the environment block
// must be sorted alphabetically by name. The sort is case-insensitive, Unicode order,
// without regard to locale."
TEST(EnvBlockWindows, EncodeSortsByNameCaseInsensitivelyAndStably) {
  const Entries in = {{"path", "p1"}, {"Home", "h"}, {"PATH", "p2"}, {"a_b", "u"}, {"AB", "x"}};
  const Entries out = decode_windows(encode_windows(in));
  // '_' (U+005F) sorts after 'B' (U+0042) in code-unit order: "AB" < "a_b".
  const Entries want = {{"AB", "x"}, {"a_b", "u"}, {"Home", "h"}, {"path", "p1"}, {"PATH", "p2"}};
  EXPECT_EQ(out, want);
  EXPECT_TRUE(windows_name_less("abc", "ABD"));
  EXPECT_FALSE(windows_name_less("ABC", "abc"));
}

// Names are case-insensitive for lookup (GetEnvironmentVariableW): "Path" finds "PATH".
TEST(EnvBlockWindows, LookupIsCaseInsensitiveFirstMatch) {
  const Entries e = decode_windows(encode_windows({{"PATH", "C:\\a"}, {"Path", "C:\\b"}}));
  ASSERT_NE(find_windows(e, "path"), nullptr);
  EXPECT_EQ(*find_windows(e, "path"), "C:\\a");
  EXPECT_EQ(find_windows(e, "PAT"), nullptr);
}

// "=C:=C:\dir": cmd.exe's per-drive current directories live in the block under names
// that start with '=' (The Old New Thing, 2010-05-06). Only the first character may be '='.
TEST(EnvBlockWindows, DriveVariablesAreKeptAndSortFirst) {
  const Entries in = {{"Path", "C:\\bin"}, {"=D:", "D:\\data"}, {"=C:", "C:\\ws"}, {"=ExitCode", "00000000"}};
  const std::u16string block = encode_windows(in);
  const Entries out = decode_windows(block);
  const Entries want = {{"=C:", "C:\\ws"}, {"=D:", "D:\\data"}, {"=ExitCode", "00000000"}, {"Path", "C:\\bin"}};
  EXPECT_EQ(out, want);
  EXPECT_EQ(block.substr(0, 10), std::u16string(u"=C:=C:\\ws\0", 10));
  EXPECT_EQ(code_of([] { encode_windows({{"A=B", "v"}}); }), "bad-env-name");
  EXPECT_EQ(code_of([] { decode_windows(std::u16string(u"=C:\0\0", 5)); }), "bad-env-block");
}

TEST(EnvBlockWindows, RefusesMalformedBlocks) {
  EXPECT_EQ(code_of([] { decode_windows(u""); }), "bad-env-block");
  EXPECT_EQ(code_of([] { decode_windows(std::u16string(u"A=1\0", 4)); }), "bad-env-block");       // no final NUL
  EXPECT_EQ(code_of([] { decode_windows(std::u16string(u"A=1\0\0B=2\0", 9)); }), "bad-env-block");  // data after it
  EXPECT_EQ(code_of([] { windows_block_from_bytes("abc"); }), "bad-env-block");                    // odd length
}

// Windows strings may hold unpaired surrogates; WTF-8 carries them through unchanged.
TEST(EnvBlockWindows, LoneSurrogatesRoundTripThroughWtf8) {
  const std::u16string block = std::u16string(u"X=\xD800y\0\0", 6);
  const Entries e = decode_windows(block);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].second, "\xED\xA0\x80y");
  EXPECT_EQ(encode_windows(e), block);
  EXPECT_EQ(windows_block_from_bytes(windows_block_bytes(block)), block);
  // A pair must use the 4-byte form; spelled as two 3-byte forms (CESU-8) it is refused.
  EXPECT_EQ(wtf8_from_utf16(u"\xD83D\xDE00"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(code_of([] { utf16_from_wtf8("\xED\xA0\xBD\xED\xB8\x80"); }), "bad-wtf8");
  EXPECT_EQ(code_of([] { utf16_from_wtf8("\xC0\x80"); }), "bad-wtf8");  // overlong NUL
}
