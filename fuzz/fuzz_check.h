// Property checks shared by the fuzz targets: a broken property aborts (a libFuzzer crash), it never throws.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/core/error.h"

namespace breakout::fuzz {

[[noreturn]] inline void property_failed(const char* expr, const char* file, int line, const std::string& detail) {
  std::fprintf(stderr, "%s:%d: property failed: %s %s\n", file, line, expr, detail.c_str());
  std::abort();
}

// Schema and protocol errors say which rule broke as "[code] ...": an Error
// without one is a message nobody can name a negative fixture after.
inline bool has_code(const Error& e) {
  const std::string_view m = e.what();
  const std::size_t close = m.find(']');
  return m.size() > 2 && m[0] == '[' && close != std::string_view::npos && close > 1;
}

// Every byte printable ASCII, \n or \t: what printable_excerpt promises.
inline bool is_printable(std::string_view s) {
  for (const unsigned char c : s)
    if (!((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t')) return false;
  return true;
}

}  // namespace breakout::fuzz

#define FUZZ_CHECK(cond) \
  ((cond) ? (void)0 : ::breakout::fuzz::property_failed(#cond, __FILE__, __LINE__, ""))
#define FUZZ_CHECK_MSG(cond, detail) \
  ((cond) ? (void)0 : ::breakout::fuzz::property_failed(#cond, __FILE__, __LINE__, (detail)))
#define FUZZ_EXPECT_CODED(error) FUZZ_CHECK_MSG(::breakout::fuzz::has_code(error), (error).what())
