// `breakout merge`: shard results of one suite against one spawner combined into one run.
#pragma once

#include <vector>

#include "harness/report/results_io.h"

namespace breakout {

// Throws Error when the shards are of different suites, spawners, policy sets or
// shard counts, repeat a shard, or overlap in execution ids.
Results merge_results(const std::vector<Results>& shards, const std::string& merged_run_id);

}  // namespace breakout
