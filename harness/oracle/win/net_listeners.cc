// Windows stub of the nonce listeners: no endpoint exists, so the planner skips every network target with the reason.
#include "harness/core/error.h"
#include "harness/oracle/net_listeners.h"

#include <utility>

namespace breakout {

namespace {
const char* const kUnsupported = ": not implemented on Windows yet (docs/windows.md)";
}  // namespace

struct NonceListeners::Impl {};
NonceListeners::NonceListeners(ExternalHost*, std::string) {}
NonceListeners::~NonceListeners() = default;
std::optional<Endpoint> NonceListeners::endpoint(const std::string&) const { return std::nullopt; }
std::string NonceListeners::skip_reason(const std::string&) const { return std::string("nonce listeners") + kUnsupported; }
std::set<std::string> NonceListeners::received(const std::string&) const { return {}; }
bool NonceListeners::wait_for(const std::string&, const std::string&, std::chrono::milliseconds) const {
  return false;
}

struct UnixNonceListener::Impl {};
std::optional<std::string> UnixNonceListener::unavailable_reason() {
  return std::string("unix-socket listeners") + kUnsupported;
}
UnixNonceListener::UnixNonceListener(std::string path) : path_(std::move(path)) {
  throw Error(std::string("unix nonce listener") + kUnsupported);
}
UnixNonceListener::~UnixNonceListener() = default;
bool UnixNonceListener::wait_for(const std::string&, std::chrono::milliseconds) const { return false; }

}  // namespace breakout
