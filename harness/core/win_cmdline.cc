// Windows command-line quoting and splitting (rules and sources in win_cmdline.h).
#include "harness/core/win_cmdline.h"

#include "harness/core/error.h"
#include "harness/core/text.h"

namespace breakout {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

std::string quote_windows_arg(std::string_view arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string_view::npos) return std::string(arg);
  std::string out = "\"";
  std::size_t backslashes = 0;
  for (char c : arg) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    // Backslashes before a quote are doubled and the quote escaped; elsewhere literal.
    out.append(c == '"' ? 2 * backslashes + 1 : backslashes, '\\');
    backslashes = 0;
    out += c;
  }
  out.append(2 * backslashes, '\\');  // before the closing quote: doubled
  out += '"';
  return out;
}

std::string quote_windows_program(std::string_view arg0) {
  check(arg0.find('"') == std::string_view::npos && arg0.find('\0') == std::string_view::npos,
        "bad-argv0", "program name '" + printable_excerpt(arg0, 80) +
            "' holds a '\"' or NUL: no Windows command line spells it");
  if (!arg0.empty() && arg0.find_first_of(" \t") == std::string_view::npos) return std::string(arg0);
  return "\"" + std::string(arg0) + "\"";
}

std::string build_windows_command_line(const std::vector<std::string>& argv) {
  check(!argv.empty(), "bad-argv", "empty argv");
  std::string out = quote_windows_program(argv[0]);
  for (std::size_t i = 1; i < argv.size(); ++i) {
    check(argv[i].find('\0') == std::string::npos, "bad-argv", "argument " + std::to_string(i) + " holds a NUL");
    out += ' ';
    out += quote_windows_arg(argv[i]);
  }
  return out;
}

std::vector<std::string> split_windows_command_line(std::string_view cmd) {
  std::vector<std::string> out;
  std::size_t i = 0;
  // Program name: up to the first blank outside quotes; quotes toggle, nothing escapes.
  std::string arg0;
  bool quoted = false;
  for (; i < cmd.size(); ++i) {
    if (cmd[i] == '"') {
      quoted = !quoted;
      continue;
    }
    if (!quoted && is_blank(cmd[i])) break;
    arg0 += cmd[i];
  }
  out.push_back(arg0);
  for (;;) {
    while (i < cmd.size() && is_blank(cmd[i])) ++i;
    if (i >= cmd.size()) return out;
    std::string arg;
    quoted = false;
    for (; i < cmd.size(); ++i) {
      const char c = cmd[i];
      if (c == '\\') {
        std::size_t n = 0;
        while (i < cmd.size() && cmd[i] == '\\') ++n, ++i;
        if (i < cmd.size() && cmd[i] == '"') {
          arg.append(n / 2, '\\');
          if (n % 2 == 1) {
            arg += '"';
            continue;  // the escaped quote is consumed by the loop's ++i
          }
          --i;  // the quote itself is handled below
        } else {
          arg.append(n, '\\');
          --i;
        }
        continue;
      }
      if (c == '"') {
        // Inside quotes, "" is one literal quote and quoting goes on (the C runtime since
        // VS 2008; older CommandLineToArgvW ends quoting there). quote_windows_arg never emits it.
        if (quoted && i + 1 < cmd.size() && cmd[i + 1] == '"') {
          arg += '"';
          ++i;
          continue;
        }
        quoted = !quoted;
        continue;
      }
      if (!quoted && is_blank(c)) break;
      arg += c;
    }
    out.push_back(std::move(arg));
  }
}

}  // namespace breakout
