// random_hex: std::random_device is getrandom(2) on Linux and rand_s on mingw.
#include "harness/core/nonce.h"

#include <random>

namespace breakout {

std::string random_hex(int bytes) {
  static thread_local std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(static_cast<std::size_t>(bytes) * 2);
  for (int i = 0; i < bytes; ++i) {
    const unsigned v = rd() & 0xffu;
    out += kHex[v >> 4];
    out += kHex[v & 0xf];
  }
  return out;
}

std::string canary_token() { return std::string(kCanaryPrefix) + random_hex(16); }

}  // namespace breakout
