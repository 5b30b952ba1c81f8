// breakout's one error convention: a failure throws breakout::Error naming the step (and errno),
// with a typed code where callers or tests tell failures apart.
//
// Why exceptions: every resource is RAII (fds, children, temp trees, cgroups,
// namespaces), so unwinding cleans up for free. Errors are caught in exactly two
// places: once per attempt (the attempt becomes verdict "error" with the message
// as its reason) and once in main() (exit status 2).
//
// Only failures throw. An expected outcome is a return value: an attempt that does not
// apply here returns attempt/skip.h's Skip, a spawner's refusal of an fs request is an
// FsAnswer (spawner/spawner.h).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace breakout {

class Error : public std::runtime_error {
 public:
  // An untyped failure (a syscall, a broken invariant): code() is empty.
  explicit Error(const std::string& what) : std::runtime_error(what) {}
  // A typed failure: `code` is stable ("bad-target", "no-suite", "win32"); what() reads
  // "[code] message" for people, and callers and tests compare code(), never the text.
  Error(std::string code, const std::string& message)
      : std::runtime_error("[" + code + "] " + message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// Throws Error("<step>: <strerror(errno)>"); call right after the failing syscall.
[[noreturn]] void throw_errno(const std::string& step);
// The same with a typed code: Error(code, "<step>: <strerror(errno)>").
[[noreturn]] void throw_errno(const char* code, const std::string& step);

// Throws Error(what) when `ok` is false.
inline void check(bool ok, const std::string& what) {
  if (!ok) throw Error(what);
}
// Throws Error(code, what) when `ok` is false.
inline void check(bool ok, const char* code, const std::string& what) {
  if (!ok) throw Error(code, what);
}

}  // namespace breakout
