// html_escape, markdown_escape, shell_quote.
#include "harness/core/escape.h"

#include <cstring>

namespace breakout {

namespace {

// "\xNN" for a control byte (lower-case hex, as printable_excerpt writes it).
void control_byte(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  const char hex[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 0xf]};
  out.append(hex, sizeof hex);
}

}  // namespace

// Both escapers append runs of unchanged bytes at once, not byte by byte: the same
// output, a fraction of the calls under ASan and the fuzzers' comparison tracing.
std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  std::size_t plain = 0;  // start of the run not yet appended
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const char* entity = nullptr;
    switch (c) {
      case '&': entity = "&amp;"; break;
      case '<': entity = "&lt;"; break;
      case '>': entity = "&gt;"; break;
      case '"': entity = "&quot;"; break;
      case '\'': entity = "&#39;"; break;
      default:
        if (!((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)) continue;
    }
    out.append(s.data() + plain, i - plain);
    if (entity) out += entity;
    else control_byte(out, c);
    plain = i + 1;
  }
  out.append(s.data() + plain, s.size() - plain);
  return out;
}

std::string markdown_escape(std::string_view s) {
  static const char* kPunct = "\\`*_{}[]()#+-.!|~=:$";
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  std::size_t plain = 0;  // start of the run not yet appended
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool special = c == '&' || c == '<' || c == '>' || c < 0x20 || c == 0x7f || (c != 0 && std::strchr(kPunct, c));
    if (!special) continue;
    out.append(s.data() + plain, i - plain);
    plain = i + 1;
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else if (c < 0x20 || c == 0x7f) control_byte(out, c);
    else out += '\\', out += static_cast<char>(c);
  }
  out.append(s.data() + plain, s.size() - plain);
  return out;
}

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace breakout
