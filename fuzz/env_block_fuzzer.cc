// Fuzzes environment-block decoding (blocks read from the sandboxed side) and encoding: never out of bounds, round-trips where it must.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "harness/core/env_block.h"
#include "harness/core/wtf8.h"

using namespace breakout;
using namespace breakout::env_block;

namespace {

// Structured use of the same bytes: entries split at 0x01, name from value at the first 0x02.
Entries entries_from(std::string_view s) {
  Entries out;
  while (!s.empty()) {
    const std::size_t end = std::min(s.find('\x01'), s.size());
    const std::string_view e = s.substr(0, end);
    const std::size_t sep = e.find('\x02');
    if (sep == std::string_view::npos) out.emplace_back(std::string(e), "");
    else out.emplace_back(std::string(e.substr(0, sep)), std::string(e.substr(sep + 1)));
    s.remove_prefix(std::min(end + 1, s.size()));
  }
  return out;
}

// What each encoder must accept, stated here independently of env_block.cc: a refusal of
// valid entries is a bug too, not just a coded error (environ(7): NAME non-empty without
// '=' or NUL; Windows: a name may start with '=' ("=C:"), SetEnvironmentVariableW).
bool posix_valid(const Entries& e) {
  return std::all_of(e.begin(), e.end(), [](const Entry& x) {
    return !x.first.empty() && x.first.find_first_of(std::string_view("=\0", 2)) == std::string::npos &&
           x.second.find('\0') == std::string::npos;
  });
}

bool is_wtf8(const std::string& s) {
  try {
    (void)utf16_from_wtf8(s);  // itself checked against wtf8_from_utf16 in check_wtf8
    return true;
  } catch (const Error&) {
    return false;
  }
}

bool windows_valid(const Entries& e) {
  return std::all_of(e.begin(), e.end(), [](const Entry& x) {
    // '=' is ASCII: no byte of a multi-byte character equals it, so byte 1 on is "after the first character".
    return !x.first.empty() && x.first.find('\0') == std::string::npos && x.first.find('=', 1) == std::string::npos &&
           x.second.find('\0') == std::string::npos && is_wtf8(x.first) && is_wtf8(x.second);
  });
}

void check_environ(std::string_view bytes) {
  try {
    const Entries e = decode_environ(bytes);
    FUZZ_CHECK(encode_environ(e) == bytes);  // decoding is strict, so it is exact
  } catch (const Error& e) {
    FUZZ_EXPECT_CODED(e);
  }
}

void check_windows_block(std::string_view bytes) {
  std::u16string block;
  Entries e;
  try {
    block = windows_block_from_bytes(bytes);
    FUZZ_CHECK(windows_block_bytes(block) == bytes);
    e = decode_windows(block);
  } catch (const Error& err) {
    FUZZ_EXPECT_CODED(err);
    return;
  }
  // Whatever decodes is valid: it encodes again, to the same entries sorted.
  const std::u16string again = encode_windows(e);
  Entries sorted = e;
  sort_windows(sorted);
  FUZZ_CHECK(decode_windows(again) == sorted);
  FUZZ_CHECK(encode_windows(sorted) == again);
  if (sorted == e && block.size() > 1) FUZZ_CHECK(again == block);
}

void check_entries(const Entries& e) {
  try {
    FUZZ_CHECK(decode_posix(encode_posix(e)) == e);
    // getenv semantics: a lookup finds the first entry of that name.
    for (std::size_t i = 0; i < e.size() && i < 8; ++i) {
      const auto first = std::find_if(e.begin(), e.end(), [&](const Entry& x) { return x.first == e[i].first; });
      FUZZ_CHECK(find_posix(e, e[i].first) == &first->second);
    }
  } catch (const Error& err) {
    FUZZ_EXPECT_CODED(err);
    FUZZ_CHECK_MSG(!posix_valid(e), err.what());  // valid entries must encode
  }
  try {
    const std::u16string block = encode_windows(e);
    FUZZ_CHECK(block.size() >= 2 && block[block.size() - 1] == u'\0' && block[block.size() - 2] == u'\0');
    const Entries back = decode_windows(block);
    Entries sorted = e;
    sort_windows(sorted);
    FUZZ_CHECK(back == sorted);
    FUZZ_CHECK(std::is_sorted(back.begin(), back.end(),
                              [](const Entry& a, const Entry& b) { return windows_name_less(a.first, b.first); }));
    // Stable sorting keeps the first of same-name duplicates first: lookups agree before and after.
    // The first few names are enough: each lookup scans the whole list, so all of them is quadratic.
    for (std::size_t i = 0; i < e.size() && i < 8; ++i) {
      const std::string& name = e[i].first;
      const std::string* before = find_windows(e, name);
      const std::string* after = find_windows(back, name);
      FUZZ_CHECK(before && after && *before == *after);
    }
  } catch (const Error& err) {
    FUZZ_EXPECT_CODED(err);
    FUZZ_CHECK_MSG(!windows_valid(e), err.what());  // valid entries must encode
  }
}

void check_wtf8(std::string_view bytes) {
  std::u16string units(bytes.size() / 2, u'\0');
  for (std::size_t i = 0; i < units.size(); ++i)
    units[i] = static_cast<char16_t>(static_cast<unsigned char>(bytes[2 * i]) | (static_cast<unsigned char>(bytes[2 * i + 1]) << 8));
  FUZZ_CHECK(utf16_from_wtf8(wtf8_from_utf16(units)) == units);
  try {
    FUZZ_CHECK(wtf8_from_utf16(utf16_from_wtf8(bytes)) == bytes);  // one spelling per string
  } catch (const Error& err) {
    FUZZ_EXPECT_CODED(err);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check_environ(bytes);
  check_windows_block(bytes);
  check_entries(entries_from(bytes));
  check_wtf8(bytes);
  return 0;
}
