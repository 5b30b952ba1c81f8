// Bounded, printable excerpts; XML escaping; glob matching.
#include "harness/core/text.h"

#include <algorithm>

namespace breakout {

namespace {

// Bytes printable_excerpt keeps as they are: printable ASCII, \n and \t.
constexpr bool kept(unsigned char c) { return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t'; }

}  // namespace

// Runs of kept bytes are appended at once: one append per run instead of one per byte
// (under ASan and the fuzzers' comparison tracing a per-byte append costs several calls).
std::string printable_excerpt(std::string_view raw, std::size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t n = raw.size() < max_bytes ? raw.size() : max_bytes;
  std::string out;
  out.reserve(n + 16);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && kept(static_cast<unsigned char>(raw[j]))) ++j;
    out.append(raw.data() + i, j - i);
    if (j == n) break;
    const unsigned char c = static_cast<unsigned char>(raw[j]);
    const char hex[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 0xf]};
    out.append(hex, sizeof hex);
    i = j + 1;
  }
  if (raw.size() > n) out += "...[" + std::to_string(raw.size() - n) + " more bytes]";
  return out;
}

std::string shorten(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = text.rfind(' ', max_bytes);
  if (cut == std::string_view::npos || cut < max_bytes / 2) cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return std::string(text.substr(0, cut)) + " …";
}

std::string ascii_lower(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t plain = 0;  // start of the run not yet appended
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char* entity = nullptr;
    switch (s[i]) {
      case '<': entity = "&lt;"; break;
      case '>': entity = "&gt;"; break;
      case '&': entity = "&amp;"; break;
      case '"': entity = "&quot;"; break;
      case '\'': entity = "&apos;"; break;
      default: continue;
    }
    out.append(s.data() + plain, i - plain);
    out += entity;
    plain = i + 1;
  }
  out.append(s.data() + plain, s.size() - plain);
  return out;
}

// Text between placeholders is appended a run at a time (as in printable_excerpt).
std::string substitute_placeholders(std::string_view text, const std::map<std::string, std::string>& vars) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t open = std::min(text.find('{', i), text.size());
    out.append(text.data() + i, open - i);
    if ((i = open) == text.size()) break;
    bool replaced = false;
    for (const auto& [key, value] : vars) {
      if (text.compare(i, key.size(), key) == 0) {
        out += value;
        i += key.size();
        replaced = true;
        break;
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
