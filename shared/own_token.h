// The token a probe plants in its OWN object (victim child, IPC object, key, pty) for the
// control of a host-object attempt: "BREAKOUT-OWN-" + the attempt nonce reversed.
//
// The harness computes the same from the nonce it passed; the probe prints the
// token only after reading it back through the technique under test, so seeing
// it in the output shows the technique works inside this sandbox. Host objects
// hold a random canary instead ("BREAKOUT-CANARY-…") the probe never learns.
//
// Portable, header-only.
#pragma once

#include <string>

namespace breakout {

inline constexpr const char* kOwnTokenPrefix = "BREAKOUT-OWN-";

inline std::string own_token(const std::string& nonce) {
  return std::string(kOwnTokenPrefix) + std::string(nonce.rbegin(), nonce.rend());
}

}  // namespace breakout
