// Merge rules: same suite/spawner/policies, disjoint ids; time span and summary recomputed.
#include "harness/report/merge.h"

#include <algorithm>
#include <set>

#include "harness/core/error.h"

namespace breakout {

Results merge_results(const std::vector<Results>& shards, const std::string& merged_run_id) {
  if (shards.empty()) throw Error("merge: no shard results given");
  const RunInfo& first = shards.front().info;
  Results out;
  out.info = first;
  out.info.run_id = merged_run_id;
  out.info.shard.clear();
  out.info.merged_from.clear();
  out.info.wall_seconds = 0;
  out.info.residue = {};
  out.info.interrupted = false;
  out.info.planned = 0;
  std::set<std::string> ids, shard_specs;
  for (const auto& s : shards) {
    const RunInfo& i = s.info;
    auto refuse = [&](const std::string& what, const std::string& a, const std::string& b) {
      throw Error("merge: " + i.run_id + " is of another " + what + " ('" + b + "', expected '" + a + "')");
    };
    if (i.suite != first.suite) refuse("suite", first.suite, i.suite);
    if (i.spawner != first.spawner) refuse("spawner", first.spawner, i.spawner);
    if (i.spawner_version != first.spawner_version) refuse("spawner version", first.spawner_version, i.spawner_version);
    if (i.policies != first.policies) refuse("policy set", "same policies", "different policies");
    if (!i.shard.empty()) {
      const auto n = [](const std::string& spec) { return spec.substr(spec.find('/') + 1); };
      if (!first.shard.empty() && n(i.shard) != n(first.shard)) refuse("shard count", first.shard, i.shard);
      if (!shard_specs.insert(i.shard).second) throw Error("merge: shard " + i.shard + " given twice");
    }
    for (const auto& r : s.records) {
      if (!ids.insert(r.id).second) throw Error("merge: execution " + r.id + " is in more than one shard");
      out.records.push_back(r);
    }
    out.info.merged_from.push_back(i.run_id);
    // One interrupted shard makes the merged run partial: its missing executions stay missing.
    out.info.interrupted = out.info.interrupted || i.interrupted;
    out.info.planned += std::max(i.planned, s.records.size());
    merge_residue(out.info.residue, i.residue);
    // Shards run side by side on different runners: the merged run took as long as the slowest.
    out.info.wall_seconds = std::max(out.info.wall_seconds, i.wall_seconds);
    out.info.jobs = std::max(out.info.jobs, i.jobs);
    if (i.started_utc < out.info.started_utc) out.info.started_utc = i.started_utc;
    if (i.finished_utc > out.info.finished_utc) out.info.finished_utc = i.finished_utc;
  }
  // One stable order whatever order the shards came in.
  std::stable_sort(out.records.begin(), out.records.end(),
                   [](const AttemptRecord& a, const AttemptRecord& b) { return a.id < b.id; });
  return out;
}

}  // namespace breakout
