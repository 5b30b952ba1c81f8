// Sharding for CI matrices: a deterministic split of a plan by execution group (docs/results.md).
#pragma once

#include <string>
#include <vector>

#include "harness/attempt/record.h"

namespace breakout {

struct Shard {
  int index = 1;  // K, 1-based
  int count = 1;  // N
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Parses "K/N" (1 <= K <= N <= 1000); throws Error otherwise.
Shard parse_shard(const std::string& spec);

// The shard (1-based) a group belongs to among `count`: a stable hash of the
// group id, so a deny and its controls stay together and the split never
// depends on plan order, the machine, or which attempts were filtered out.
int shard_of(const std::string& group, int count);

// Keeps only this shard's executions and renumbers them.
void keep_shard(std::vector<Execution>& plan, const Shard& shard);

}  // namespace breakout
