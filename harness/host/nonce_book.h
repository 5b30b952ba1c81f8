// The nonces the loopback listeners have received, per endpoint: parsing hostile bytes for
// "BREAKOUT-NONCE <hex>", a bounded memory of what was seen, and waiting for one nonce.
// Portable; the POSIX and Windows listener engines (host/{posix,win}/net_listeners.cc) share it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace breakout {

// Every "BREAKOUT-NONCE <[0-9a-f]{8,64}>" in data. A hex run that reaches the end of the
// data counts only when `final` (more bytes may still come on that connection).
std::vector<std::string> find_nonces(const std::string& data, bool final);

class NonceBook {
 public:
  // Remembered nonces: a flood of fake ones evicts the oldest, never the newest, so the
  // attempt being judged right now keeps its evidence.
  static constexpr std::size_t kMaxNonces = 100000;

  // Records every nonce in `data` as received on `endpoint` and wakes waiters.
  void record(const std::string& data, const std::string& endpoint, bool final);
  // The endpoints that received `nonce` (empty: none).
  std::set<std::string> received(const std::string& nonce) const;
  // True once `nonce` arrived (on `endpoint`, when not null) within max_wait.
  bool wait_for(const std::string& nonce, const std::string* endpoint, std::chrono::milliseconds max_wait) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, std::set<std::string>> got_;  // nonce -> endpoints
  std::deque<std::string> order_;                      // nonces, oldest first
};

}  // namespace breakout
