// JSON and TOML literals of harness values, for generated spawner config files and argv elements.
//
// A template profile may write a tool's whole policy into a config file (srt's settings file)
// or pass one TOML value on the command line (Codex's `-c key=value`). Every substituted value
// becomes a complete, escaped literal of that format, never raw text inside one, so a path
// holding `"`, `\`, `]` or a newline stays one string (tests/unit/profile_test.cc).
//
//   const auto f = literal_format("toml");            // nullopt for an unknown name
//   std::string s = literal_array(*f, {"/a", "b\"c"});  // ["/a", "b\"c"]
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace breakout {

enum class LiteralFormat { kJson, kToml };
std::optional<LiteralFormat> literal_format(std::string_view name);

// Throw Error("[bad-literal] ...") for text that is not valid UTF-8: neither JSON (RFC 8259
// §8.1) nor TOML (v1.0.0, "strings") can carry it, and a lossy replacement would hand the
// tool another path than the policy's.
std::string literal_string(LiteralFormat f, std::string_view s);
std::string literal_array(LiteralFormat f, const std::vector<std::string>& items);
// JSON object / TOML inline table of string values, keys quoted.
std::string literal_table(LiteralFormat f, const std::map<std::string, std::string>& entries);

}  // namespace breakout
