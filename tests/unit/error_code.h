// Test helper: the code of the Error a call throws (harness/core/error.h convention), or "no error".
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
    return e.code().empty() ? "untyped: " + std::string(e.what()) : e.code();
  }
  return "no error";
}

}  // namespace breakout::test_util
