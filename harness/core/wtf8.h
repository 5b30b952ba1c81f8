// UTF-16 <-> WTF-8: Windows strings (which may hold unpaired surrogates) as byte strings, losslessly.
//
// WTF-8 (https://simonsapin.github.io/wtf-8/) is UTF-8 that also encodes a lone
// surrogate as its 3-byte form; a surrogate *pair* must use the 4-byte form, so
// every UTF-16 string has exactly one WTF-8 spelling and both directions round-trip.
#pragma once

#include <string>
#include <string_view>

namespace breakout {

// Never fails: every sequence of UTF-16 code units has a WTF-8 spelling.
std::string wtf8_from_utf16(std::u16string_view s);

// Throws Error("bad-wtf8", "...") for anything that is not well-formed WTF-8
// (overlong forms, > U+10FFFF, truncated sequences, a pair spelled as two 3-byte forms).
std::u16string utf16_from_wtf8(std::string_view s);

}  // namespace breakout
