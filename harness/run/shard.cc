// Shard selection: SHA-256 of the group id decides, so every runner computes the same split.
#include "harness/run/shard.h"

#include <charconv>

#include "harness/core/error.h"
#include "harness/core/sha256.h"

namespace breakout {

namespace {

int parse_int(std::string_view s, const std::string& spec) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) throw Error("--shard " + spec + ": expected K/N");
  return v;
}

}  // namespace

Shard parse_shard(const std::string& spec) {
  const auto slash = spec.find('/');
  if (slash == std::string::npos) throw Error("--shard " + spec + ": expected K/N");
  Shard s{parse_int(std::string_view(spec).substr(0, slash), spec),
          parse_int(std::string_view(spec).substr(slash + 1), spec)};
  if (s.count < 1 || s.count > 1000 || s.index < 1 || s.index > s.count)
    throw Error("--shard " + spec + ": need 1 <= K <= N <= 1000");
  return s;
}

int shard_of(const std::string& group, int count) {
  // The first 60 bits of the digest: uniform enough, and identical on every platform.
  const std::string hex = sha256_hex(group).substr(0, 15);
  const unsigned long long h = std::stoull(hex, nullptr, 16);
  return static_cast<int>(h % static_cast<unsigned long long>(count)) + 1;
}

void keep_shard(std::vector<Execution>& plan, const Shard& shard) {
  std::erase_if(plan, [&](const Execution& ex) { return shard_of(ex.group, shard.count) != shard.index; });
  for (std::size_t i = 0; i < plan.size(); ++i) plan[i].index = static_cast<int>(i);
}

}  // namespace breakout
