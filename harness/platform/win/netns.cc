// Windows stub of ExternalHost: create() reports why there is none, as its contract says.
#include "harness/platform/netns.h"

#include "harness/core/error.h"

namespace breakout {

namespace {
const char* const kUnsupported =
    "external host: the harness makes no network namespace on Windows (docs/windows.md)";
}  // namespace

std::unique_ptr<ExternalHost> ExternalHost::create(const std::string&, std::string* why_not) {
  if (why_not != nullptr) *why_not = kUnsupported;
  return nullptr;
}
ExternalHost::~ExternalHost() = default;
int ExternalHost::socket_in_namespace(int, int) const { throw Error(kUnsupported); }

}  // namespace breakout
