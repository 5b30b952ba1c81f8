// Text from the sandboxed side is hostile: bound it and make it printable before it goes anywhere.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace breakout {

// At most `max_bytes` of input; bytes outside printable ASCII (except \n and \t)
// become "\xNN"; a cut adds "…[N more bytes]". The result is valid UTF-8/ASCII,
// safe for JSON, XML (after escaping) and terminals (no escape sequences).
std::string printable_excerpt(std::string_view raw, std::size_t max_bytes);

// XML text/attribute escaping of an already printable string.
std::string xml_escape(std::string_view s);

// Replaces "{name}" keys of `vars` in one left-to-right pass: substituted text is
// never scanned again, so a value containing "{cwd}" stays literal.
std::string substitute_placeholders(std::string_view text, const std::map<std::string, std::string>& vars);

// At most about `max_bytes` of an already printable text for display: a longer one is cut at
// its last space in the second half of the limit (else at the limit) and ends in " …", so a
// reason never stops mid-word.
std::string shorten(std::string_view text, std::size_t max_bytes);

// `s` with ASCII letters in lower case (names and paths compared case-insensitively).
std::string ascii_lower(std::string s);

// Simple glob: '*' matches any run, '?' one character; everything else literal.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace breakout
