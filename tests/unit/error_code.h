// Test helper: the "[code]" an Error message starts with (harness/core/error.h convention), or "no error".
#pragma once

#include <string>

#include "harness/core/error.h"

namespace breakout::test_util {

// code_of([] { decode_posix({"X"}); }) == "bad-env-entry"
template <typename F>
std::string code_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    const std::string m = e.what();
    return m.substr(1, m.find(']') - 1);
  }
  return "no error";
}

}  // namespace breakout::test_util
