// Escaping for the human-facing reports (report/): every string from results.json is hostile (it came from the sandbox). Pure text, so core/.
#pragma once

#include <string>
#include <string_view>

namespace breakout {

// HTML text and attribute escaping (& < > " '); control bytes become U+FFFD-free "\xNN".
std::string html_escape(std::string_view s);

// Markdown inline text (GitHub-flavoured): HTML entities for & < >, a backslash
// before every Markdown punctuation character, newlines folded to spaces, so
// nothing in it can open a link, a table cell, code, or raw HTML.
std::string markdown_escape(std::string_view s);

// A POSIX shell single-quoted word ('it'\''s').
std::string shell_quote(std::string_view s);

}  // namespace breakout
