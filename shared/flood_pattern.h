// The byte pattern of the output-flood contract, shared by the pipe-flood probe
// (which writes it) and the harness (which checks what it captured).
//
// Byte i of stdout is '!' + (i % 89), of stderr '!' + ((i * 3 + 7) % 89): both
// stay within '!'..'y' (printable, no '\n' or '\r', so text-mode translation or
// line buffering cannot alter them), and the two streams differ, so a spawner
// that swaps or merges stdout and stderr is caught. 89 is prime, so a dropped or
// duplicated chunk of any power-of-two size shifts the pattern visibly.
//
// Portable, header-only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace breakout {

// stream: 1 stdout, 2 stderr.
inline char flood_byte(int stream, std::uint64_t i) {
  const std::uint64_t k = stream == 2 ? (i * 3 + 7) % 89 : i % 89;
  return static_cast<char>('!' + k);
}

// Fills out[0..n) with bytes offset..offset+n of `stream`.
inline void fill_flood(int stream, std::uint64_t offset, char* out, std::uint64_t n) {
  for (std::uint64_t j = 0; j < n; ++j) out[j] = flood_byte(stream, offset + j);
}

// "" when `got` is exactly the first `expected_len` bytes of `stream`; otherwise
// a short description of the first difference.
inline std::string check_flood(int stream, std::string_view got, std::uint64_t expected_len) {
  const std::uint64_t n = got.size() < expected_len ? got.size() : expected_len;
  for (std::uint64_t i = 0; i < n; ++i) {
    const char want = flood_byte(stream, i);
    if (got[i] != want) {
      const auto byte = [](char c) { return std::to_string(static_cast<unsigned char>(c)); };
      return "stream " + std::to_string(stream) + ": first mismatch at offset " + std::to_string(i) +
             ": expected byte " + byte(want) + ", got byte " + byte(got[i]);
    }
  }
  if (got.size() != expected_len)
    return "stream " + std::to_string(stream) + ": got " + std::to_string(got.size()) + " bytes, expected " +
           std::to_string(expected_len) + (got.size() < expected_len ? " (short)" : " (extra bytes)");
  return "";
}

}  // namespace breakout
