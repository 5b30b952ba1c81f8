// A class's availability, from its table entry: the platforms its mechanism exists on (decided
// here, at compile time, once for every class) and the kernel requirement the platform code asks
// the kernel about (requirement_unavailable).
#include "harness/host/availability.h"

namespace breakout {

namespace {

// Whether a harness built for this platform can run a class of `p`.
constexpr bool runs_here(Platforms p) {
#if defined(_WIN32)
  return p == Platforms::kAny || p == Platforms::kWindows;
#elif defined(__linux__) && defined(__x86_64__)
  return p != Platforms::kWindows;
#elif defined(__linux__)
  return p == Platforms::kAny || p == Platforms::kLinux;
#else
  return p == Platforms::kAny;
#endif
}

}  // namespace

std::optional<std::string> class_unavailable(AttemptClass klass) {
  const ClassSpec& spec = class_spec(klass);
  if (!runs_here(spec.platforms)) return std::string(spec.platform_why);
  return requirement_unavailable(spec.needs);
}

}  // namespace breakout
