// Windows stub of run_process/Containment (Windows support lands with the Windows issue).
#include "harness/platform/process.h"

#include <utility>

#include "harness/core/error.h"

namespace breakout {

namespace {
const char* const kUnsupported = ": unsupported on this platform (Windows support lands with the Windows issue)";
}  // namespace

Containment::Containment(std::string label, std::string nonce) : label_(std::move(label)), nonce_(std::move(nonce)) {
  throw Error(std::string("process containment") + kUnsupported);
}
Containment::~Containment() = default;
int Containment::kill_all() noexcept { return 0; }
int Containment::live_count() const { throw Error(std::string("process containment") + kUnsupported); }
std::string Containment::mechanism() const { return "none"; }

LaunchResult run_process(const LaunchSpec&, Containment*, const std::atomic<bool>*) {
  LaunchResult r;
  r.start_error = std::string("run_process") + kUnsupported;
  return r;
}

}  // namespace breakout
