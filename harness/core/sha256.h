// Portable SHA-256 (FIPS 180-4), so the harness and the probes agree on digests
// without OpenSSL (the probes and harness core also build with mingw-w64).
//
//   std::string h = breakout::sha256_hex("abc");   // "ba7816bf..."
//   breakout::Sha256 s; s.update(buf, n); ...; std::string h = s.hex_digest();
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace breakout {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t len);
  // Finishes the hash and returns 64 lower-case hex digits. The object is then
  // reset, so it can be reused for a new message.
  std::string hex_digest();

 private:
  void compress(const unsigned char* block);
  void reset();

  std::uint32_t state_[8];
  unsigned char buf_[64];
  std::size_t buf_len_ = 0;
  std::uint64_t total_len_ = 0;  // bytes
};

// One-shot convenience.
std::string sha256_hex(std::string_view data);

// SHA-256 of key ":" data. Real-host reads (docs/real-host.md): the probe proves it
// read a real secret without its content, or a digest anyone could look up,
// leaving the sandbox; the key is a fresh per-attempt nonce the harness holds.
std::string keyed_sha256_hex(std::string_view key, std::string_view data);

}  // namespace breakout
