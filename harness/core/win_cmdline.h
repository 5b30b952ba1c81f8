// Windows command lines, both ways: quoting argv for CreateProcessW and splitting as CommandLineToArgvW does.
//
// Windows hands a child one string, not an argv; the child's C runtime (or
// CommandLineToArgvW) splits it. Rules, from Microsoft Learn "Parsing C++
// command-line arguments" and "CommandLineToArgvW":
//   * arguments are separated by spaces or tabs; "..." groups, the quotes vanish;
//   * 2n backslashes before a quote -> n backslashes, the quote toggles quoting;
//   * 2n+1 backslashes before a quote -> n backslashes and a literal quote;
//   * backslashes not before a quote are literal;
//   * the first argument (the program name) is special: it ends at the first
//     space/tab outside quotes and backslashes are never escapes there.
// Portable (unit-tested on Linux; round-tripped through real children under Wine).
//   std::wstring-free: strings are WTF-8 here, converted at the Win32 boundary.
//   std::string cmd = build_windows_command_line({"C:\\a b\\x.exe", "say \"hi\"", ""});
//   auto argv = split_windows_command_line(cmd);  // == the input
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace breakout {

// One argument (not the first), quoted only when it needs to be; the empty
// argument becomes "" (D. Colascione, "Everyone quotes command line arguments
// the wrong way", Microsoft devblogs, 2011).
std::string quote_windows_arg(std::string_view arg);

// The first argument: quoted when it holds a space or tab or is empty. Throws
// Error("bad-argv0", "...") when it holds a '"' (no spelling survives the
// program-name rule) or a NUL.
std::string quote_windows_program(std::string_view arg0);

// program + each further argument quoted, joined by single spaces. Throws
// Error("bad-argv", "...") for an argument holding a NUL.
std::string build_windows_command_line(const std::vector<std::string>& argv);

// The inverse, as CommandLineToArgvW splits (the program-name rule for the
// first argument, the backslash rules for the rest).
std::vector<std::string> split_windows_command_line(std::string_view cmd);

}  // namespace breakout
