// Collects the secrets a process-reach probe may find in another process's memory: the
// harness's canary ("BREAKOUT-CANARY-" + 32 hex, harness/core/nonce.h canary_token) and the
// probe's own token ("BREAKOUT-OWN-" + 32 hex, shared/own_token.h). Bounded: at most 8 distinct tokens.
//
//   std::set<std::string> found;  collect_tokens(chunk, &found);
//
// Portable, header-only (proc-reach on Linux and on Windows).
#pragma once

#include <cctype>
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "shared/own_token.h"

namespace breakout::probe {

inline constexpr std::size_t kMaxTokens = 8;

inline void collect_tokens(std::string_view data, std::set<std::string>* found) {
  for (const char* prefix : {"BREAKOUT-CANARY-", breakout::kOwnTokenPrefix}) {
    const std::size_t plen = std::strlen(prefix);
    for (std::size_t at = data.find(prefix); at != std::string_view::npos && found->size() < kMaxTokens;
         at = data.find(prefix, at + 1)) {
      if (at + plen + 32 > data.size()) break;
      const std::string_view tok = data.substr(at, plen + 32);
      bool hex = true;
      for (std::size_t i = plen; i < tok.size(); ++i) hex = hex && std::isxdigit(static_cast<unsigned char>(tok[i]));
      if (hex) found->insert(std::string(tok));
    }
  }
}

}  // namespace breakout::probe
