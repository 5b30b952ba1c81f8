// EndpointTable: endpoint specs and skip reasons shared by both platforms' listeners (endpoint_table.h).
#include "harness/host/endpoint_table.h"

#include <utility>

namespace breakout {

void EndpointTable::bound(const std::string& name, bool stream, IpFamily family, const std::string& addr, int port,
                          bool loopback) {
  const std::string host = family == IpFamily::v6 ? "[" + addr + "]" : addr;
  endpoints_[name] = Endpoint{name, std::string(stream ? "tcp:" : "udp:") + host + ":" + std::to_string(port), loopback};
  skipped_.erase(name);
}

void EndpointTable::skip(const std::string& name, std::string why) { skipped_[name] = std::move(why); }

void EndpointTable::skip_external(const std::string& unavailable_reason) {
  const std::string why =
      "external host unavailable: " + (unavailable_reason.empty() ? std::string("not requested") : unavailable_reason);
  skip("tcp4-external", why);
  skip("udp4-external", why);
  skip("proxy-allowed", why);
  skip("proxy-denied", why);
  skip("name-denied", why);
}

std::optional<Endpoint> EndpointTable::find(const std::string& name) const {
  const auto it = endpoints_.find(name);
  if (it == endpoints_.end()) return std::nullopt;
  return it->second;
}

std::string EndpointTable::skip_reason(const std::string& name) const {
  if (endpoints_.count(name) > 0) return "";
  const auto it = skipped_.find(name);
  return it != skipped_.end() ? it->second : "unknown endpoint '" + name + "'";
}

}  // namespace breakout
