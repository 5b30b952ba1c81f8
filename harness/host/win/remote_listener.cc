// Windows stub of the remote nonce listener: real-host mode runs on Linux today (docs/windows.md).
#include "harness/host/remote_listener.h"

#include "harness/core/error.h"

namespace breakout {

namespace {
const char* const kUnsupported = "the real-host network check: unsupported on this platform (docs/windows.md)";
}  // namespace

RemoteNonceListener::RemoteNonceListener(const std::string&) { throw Error(kUnsupported); }
std::string RemoteNonceListener::spec() const { return ""; }
std::string RemoteNonceListener::label() const { return ""; }
bool RemoteNonceListener::wait_for(const std::string&, std::chrono::milliseconds) const { throw Error(kUnsupported); }
std::optional<std::string> RemoteNonceListener::preflight() const { return std::string(kUnsupported); }
int serve_nonces(const std::string&, std::chrono::seconds, const std::atomic<bool>*, std::ostream&) {
  throw Error(kUnsupported);
}

}  // namespace breakout
