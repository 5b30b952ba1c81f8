// Random per-run and per-attempt tokens (nonces, canary secrets); hex, from the OS CSPRNG.
#pragma once

#include <string>

namespace breakout {

// `bytes` random bytes as lower-case hex (2*bytes characters).
std::string random_hex(int bytes);

// Every canary secret the harness plants starts with this, so a report can point at one.
inline constexpr const char* kCanaryPrefix = "BREAKOUT-CANARY-";
// A fresh canary secret: kCanaryPrefix and 16 random bytes as hex.
std::string canary_token();

}  // namespace breakout
