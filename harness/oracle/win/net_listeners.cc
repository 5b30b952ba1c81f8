// Windows stub of the nonce listeners (Windows support lands with the Windows issue).
#include "harness/core/error.h"
#include "harness/oracle/net_listeners.h"

#include <utility>

namespace breakout {

namespace {
const char* const kUnsupported = ": unsupported on this platform (Windows support lands with the Windows issue)";
}  // namespace

struct NonceListeners::Impl {};
NonceListeners::NonceListeners(ExternalHost*, std::string) {
  throw Error(std::string("nonce listeners") + kUnsupported);
}
NonceListeners::~NonceListeners() = default;
std::optional<Endpoint> NonceListeners::endpoint(const std::string&) const { return std::nullopt; }
std::string NonceListeners::skip_reason(const std::string&) const { return std::string("nonce listeners") + kUnsupported; }
std::set<std::string> NonceListeners::received(const std::string&) const { return {}; }
bool NonceListeners::wait_for(const std::string&, const std::string&, std::chrono::milliseconds) const {
  return false;
}

struct UnixNonceListener::Impl {};
UnixNonceListener::UnixNonceListener(std::string path) : path_(std::move(path)) {
  throw Error(std::string("unix nonce listener") + kUnsupported);
}
UnixNonceListener::~UnixNonceListener() = default;
bool UnixNonceListener::wait_for(const std::string&, std::chrono::milliseconds) const { return false; }

}  // namespace breakout
