// Plain-words errors for JSON files given to breakout; the library's own messages are rephrased.
#include "harness/core/json_file.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "harness/core/error.h"
#include "harness/core/text.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

// nlohmann's parse_error::what() reads "[json.exception.parse_error.101] parse error at line 1, column 9:
// syntax error while parsing value - invalid literal; last read: '<bytes>'; expected end of input"
// (json.hpp, parse_error::create and parser::exception_message). Kept: the problem after " - " and
// the "expected" part; dropped: the prefix and "last read", which holds the file's bytes.
std::string library_detail(const std::string& what) {
  std::string detail = what;
  if (auto dash = detail.find(" - "); dash != std::string::npos) detail = detail.substr(dash + 3);
  else if (auto colon = detail.rfind(": "); colon != std::string::npos) detail = detail.substr(colon + 2);
  // "last read" quotes the file, which may hold "; " itself; the library's "expected" part comes last.
  if (auto read = detail.find("; last read: "); read != std::string::npos) {
    const auto expected = detail.rfind("; expected ");
    detail = detail.substr(0, read) + (expected != std::string::npos && expected > read ? detail.substr(expected) : "");
  } else if (detail.rfind("last read: ", 0) == 0) {
    detail.clear();
  }
  return detail;
}

// What belongs where the parse stopped, when the library's sentence does not say it already.
std::string expected_for(const std::string& what, const std::string& detail) {
  if (detail.find("expected") != std::string::npos || detail.find("invalid string") != std::string::npos) return "";
  if (what.find("while parsing object key") != std::string::npos) return "expected a quoted key";
  if (what.find("while parsing value") != std::string::npos)
    return "expected a JSON value (a string, number, object, array, true, false or null)";
  return "";
}

}  // namespace

std::string printable_path(const fs::path& path) { return printable_excerpt(path.string(), 4096); }

std::string json_parse_error_text(const nlohmann::json::parse_error& e, std::string_view text) {
  // e.byte is 1-based: the last character read, the one that did not fit (past the end: the end).
  const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
  const std::size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
  const std::size_t column = at - (line_start == std::string_view::npos || at == 0 ? 0 : line_start + 1) + 1;
  const std::string what = e.what();
  const std::string detail = library_detail(what);
  std::string out = "not valid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " +
                    std::to_string(at + 1) + "): " + printable_excerpt(detail, 300);
  if (const std::string expected = expected_for(what, detail); !expected.empty()) out += "; " + expected;
  if (at < text.size()) {
    const std::size_t from = std::max(at >= 12 ? at - 12 : 0, line_start == std::string_view::npos ? 0 : line_start + 1);
    std::string_view near = text.substr(from, at + 12 - from);
    near = near.substr(0, near.find('\n'));
    out += "; near '" + printable_excerpt(near, 40) + "'";
  }
  return out;
}

std::string json_error_text(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0)
    if (auto close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
  return printable_excerpt(what, 300);
}

nlohmann::json read_json_file(const fs::path& file, std::string_view what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("no-file", "cannot read " + std::string(what) + " " + printable_path(file));
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string text = std::move(buf).str();
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error("bad-json", printable_path(file) + ": " + json_parse_error_text(e, text));
  }
}

}  // namespace breakout
