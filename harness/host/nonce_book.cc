// NonceBook: the listeners' bounded memory of received nonces (nonce_book.h).
#include "harness/host/nonce_book.h"

#include "harness/host/net_listeners.h"  // kNonceMarker

namespace breakout {

namespace {
bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
}  // namespace

std::vector<std::string> find_nonces(const std::string& data, bool final) {
  std::vector<std::string> found;
  const std::string marker = kNonceMarker;
  for (std::size_t at = data.find(marker); at != std::string::npos; at = data.find(marker, at + 1)) {
    const std::size_t start = at + marker.size();
    std::size_t end = start;
    while (end < data.size() && end - start <= 64 && is_lower_hex(data[end])) ++end;
    const std::size_t len = end - start;
    if (len < 8 || len > 64) continue;
    if (end == data.size() && !final) continue;
    found.push_back(data.substr(start, len));
  }
  return found;
}

void NonceBook::record(const std::string& data, const std::string& endpoint, bool final) {
  const std::vector<std::string> nonces = find_nonces(data, final);
  if (nonces.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& nonce : nonces) {
      auto [it, fresh] = got_.try_emplace(nonce);
      it->second.insert(endpoint);
      if (!fresh) continue;
      order_.push_back(nonce);
      if (order_.size() > kMaxNonces) {
        got_.erase(order_.front());
        order_.pop_front();
      }
    }
  }
  cv_.notify_all();
}

std::set<std::string> NonceBook::received(const std::string& nonce) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = got_.find(nonce);
  return it == got_.end() ? std::set<std::string>{} : it->second;
}

bool NonceBook::wait_for(const std::string& nonce, const std::string* endpoint,
                         std::chrono::milliseconds max_wait) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, max_wait, [&] {
    const auto it = got_.find(nonce);
    return it != got_.end() && (endpoint == nullptr || it->second.count(*endpoint) > 0);
  });
}

}  // namespace breakout
