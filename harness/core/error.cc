// Implementation of the errno-carrying throw helper.
#include "harness/core/error.h"

#include <cerrno>
#include <cstring>

namespace breakout {

namespace {

std::string errno_text(const std::string& step, int saved) {
  return step + ": " + std::strerror(saved) + " (errno " + std::to_string(saved) + ")";
}

}  // namespace

void throw_errno(const std::string& step) {
  const int saved = errno;
  throw Error(errno_text(step, saved));
}

void throw_errno(const char* code, const std::string& step) {
  const int saved = errno;
  throw Error(code, errno_text(step, saved));
}

}  // namespace breakout
