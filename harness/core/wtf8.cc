// WTF-8 encoder/decoder (Unicode 15 §3.9 table 3-7 plus lone surrogates).
#include "harness/core/wtf8.h"

#include "harness/core/error.h"
#include "harness/core/text.h"

namespace breakout {

namespace {

bool is_high(char32_t c) { return c >= 0xD800 && c <= 0xDBFF; }
bool is_low(char32_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

void put(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

[[noreturn]] void bad(std::string_view s, std::size_t at, const char* why) {
  throw Error("bad-wtf8", "byte " + std::to_string(at) + ": " + why + " in '" + printable_excerpt(s, 80) + "'");
}

}  // namespace

std::string wtf8_from_utf16(std::u16string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char32_t c = s[i];
    if (is_high(c) && i + 1 < s.size() && is_low(s[i + 1])) {
      put(out, 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00));
      ++i;
    } else {
      put(out, c);  // lone surrogates included: that is the point of WTF-8
    }
  }
  return out;
}

std::u16string utf16_from_wtf8(std::string_view s) {
  std::u16string out;
  out.reserve(s.size());
  bool after_high = false;  // the previous code point was a lone high surrogate
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    char32_t c = 0, min = 0;
    if (b < 0x80) len = 1, c = b;
    else if (b >= 0xC2 && b <= 0xDF) len = 2, c = b & 0x1F, min = 0x80;
    else if (b >= 0xE0 && b <= 0xEF) len = 3, c = b & 0x0F, min = 0x800;
    else if (b >= 0xF0 && b <= 0xF4) len = 4, c = b & 0x07, min = 0x10000;
    else bad(s, i, "invalid lead byte");
    if (i + len > s.size()) bad(s, i, "truncated sequence");
    for (std::size_t k = 1; k < len; ++k) {
      const unsigned char t = static_cast<unsigned char>(s[i + k]);
      if ((t & 0xC0) != 0x80) bad(s, i + k, "invalid continuation byte");
      c = (c << 6) | (t & 0x3F);
    }
    if (c < min) bad(s, i, "overlong form");
    if (c > 0x10FFFF) bad(s, i, "beyond U+10FFFF");
    // A pair spelled as two 3-byte forms (CESU-8) would decode to the same
    // UTF-16 as the 4-byte form: refused so the spelling stays unique.
    if (after_high && is_low(c)) bad(s, i, "surrogate pair spelled as two 3-byte forms");
    after_high = is_high(c);
    if (c >= 0x10000) {
      out += static_cast<char16_t>(0xD800 + ((c - 0x10000) >> 10));
      out += static_cast<char16_t>(0xDC00 + ((c - 0x10000) & 0x3FF));
    } else {
      out += static_cast<char16_t>(c);
    }
    i += len;
  }
  return out;
}

}  // namespace breakout
