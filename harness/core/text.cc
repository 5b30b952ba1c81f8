// Bounded, printable excerpts; XML escaping; glob matching.
#include "harness/core/text.h"

namespace breakout {

std::string printable_excerpt(std::string_view raw, std::size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t n = raw.size() < max_bytes ? raw.size() : max_bytes;
  std::string out;
  out.reserve(n + 16);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(raw[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  if (raw.size() > n) out += "...[" + std::to_string(raw.size() - n) + " more bytes]";
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string substitute_placeholders(std::string_view text, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (text[i] == '{') {
      for (const auto& [key, value] : vars) {
        if (text.compare(i, key.size(), key) == 0) {
          out += value;
          i += key.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace breakout
