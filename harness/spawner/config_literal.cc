// JSON (RFC 8259) and TOML v1.0.0 string, array and table literals.
#include "harness/spawner/config_literal.h"

#include <cstdio>

#include "harness/core/error.h"

namespace breakout {

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not a valid one
// (RFC 3629 §4: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

std::optional<LiteralFormat> literal_format(std::string_view name) {
  if (name == "json") return LiteralFormat::kJson;
  if (name == "toml") return LiteralFormat::kToml;
  return std::nullopt;
}

std::string literal_string(LiteralFormat f, std::string_view s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_length(s, i);
    if (n == 0) throw Error("bad-literal", "not valid UTF-8, cannot be a " + std::string(f == LiteralFormat::kJson ? "JSON" : "TOML") + " string");
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || (c == 0x7F && f == LiteralFormat::kToml)) {
      // JSON must escape U+0000..U+001F; TOML also U+007F. \uXXXX is valid in both.
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", c);
      out += buf;
    } else {
      out.append(s.data() + i, n);
    }
    i += n;
  }
  return out + "\"";
}

std::string literal_array(LiteralFormat f, const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + literal_string(f, items[i]);
  return out + "]";
}

std::string literal_table(LiteralFormat f, const std::map<std::string, std::string>& entries) {
  const char* sep = f == LiteralFormat::kJson ? ": " : " = ";
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : entries) {
    out += (first ? "" : ", ") + literal_string(f, k) + sep + literal_string(f, v);
    first = false;
  }
  return out + "}";
}

}  // namespace breakout
