// Implementation of the errno-carrying throw helper.
#include "harness/core/error.h"

#include <cerrno>
#include <cstring>

namespace breakout {

void throw_errno(const std::string& step) {
  const int saved = errno;
  throw Error(step + ": " + std::strerror(saved) + " (errno " + std::to_string(saved) + ")");
}

}  // namespace breakout
