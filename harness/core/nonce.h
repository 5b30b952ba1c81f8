// Random per-run and per-attempt tokens (nonces, canary secrets); hex, from the OS CSPRNG.
#pragma once

#include <string>

namespace breakout {

// `bytes` random bytes as lower-case hex (2*bytes characters).
std::string random_hex(int bytes);

}  // namespace breakout
