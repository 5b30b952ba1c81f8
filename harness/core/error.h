// breakout's one error convention: a failure throws breakout::Error naming the step (and errno).
//
// Why exceptions: every resource is RAII (fds, children, temp trees, cgroups,
// namespaces), so unwinding cleans up for free. Errors are caught in exactly two
// places: once per attempt (the attempt becomes verdict "error" with the message
// as its reason) and once in main() (exit status 2).
#pragma once

#include <stdexcept>
#include <string>

namespace breakout {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// An attempt that has nothing to attempt here (no pin to aim at, a path form that does not
// apply, no --real-host): caught once per attempt, where it becomes a skip with this reason.
class NothingToAttempt : public Error {
 public:
  using Error::Error;
};

// Throws Error("<step>: <strerror(errno)>"); call right after the failing syscall.
[[noreturn]] void throw_errno(const std::string& step);

// Throws Error(what) when `ok` is false.
inline void check(bool ok, const std::string& what) {
  if (!ok) throw Error(what);
}

}  // namespace breakout
