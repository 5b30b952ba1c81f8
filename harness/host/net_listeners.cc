// NonceListeners' accessors, portable: endpoints and received nonces, read from the shared table and book.
#include "harness/host/net_listeners.h"

#include "harness/host/endpoint_table.h"

namespace breakout {

std::optional<Endpoint> NonceListeners::endpoint(const std::string& name) const { return shared_->table.find(name); }

std::string NonceListeners::skip_reason(const std::string& name) const { return shared_->table.skip_reason(name); }

std::set<std::string> NonceListeners::received(const std::string& nonce) const {
  return shared_->book.received(nonce);
}

bool NonceListeners::wait_for(const std::string& nonce, const std::string& endpoint_name,
                              std::chrono::milliseconds max_wait) const {
  return shared_->book.wait_for(nonce, &endpoint_name, max_wait);
}

}  // namespace breakout
