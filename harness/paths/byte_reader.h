// Choices drawn from fuzz bytes: every read succeeds (zeros once the input is used up), so any input is a valid program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace breakout::paths {

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  std::uint8_t byte() {
    if (pos_ >= bytes_.size()) return 0;
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }
  // A number in [0, n); 0 when n == 0.
  std::size_t pick(std::size_t n) {
    if (n == 0) return 0;
    if (n <= 256) return byte() % n;
    return ((static_cast<std::size_t>(byte()) << 8) | byte()) % n;
  }
  bool flag() { return byte() & 1; }
  bool empty() const { return pos_ >= bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

}  // namespace breakout::paths
