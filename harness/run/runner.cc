// Worker pool over the plan; controls applied once everything ran.
#include "harness/run/runner.h"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "harness/attempt/run_attempt.h"

namespace breakout {

std::vector<AttemptRecord> run_all(const std::vector<Execution>& plan, const RunContext& ctx, int jobs,
                                   const std::function<void(std::size_t, std::size_t, const AttemptRecord&)>& progress) {
  std::vector<AttemptRecord> records(plan.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex mu;
  auto worker = [&] {
    for (std::size_t i = next++; i < plan.size(); i = next++) {
      records[i] = run_attempt(plan[i], ctx);
      std::lock_guard lock(mu);
      ++done;
      if (progress) progress(done, plan.size(), records[i]);
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  apply_controls(records);
  return records;
}

void apply_controls(std::vector<AttemptRecord>& records) {
  std::map<std::string, std::vector<const AttemptRecord*>> controls;
  for (const auto& r : records)
    if (r.role == "allow") controls[r.group].push_back(&r);
  for (auto& r : records) {
    if (r.role != "deny") continue;
    for (const AttemptRecord* c : controls[r.group]) {
      r.controls.push_back(c->id);
      const bool excused = !c->refused.empty() && r.witnessed;
      const Judgement j = apply_control({r.verdict, r.reason}, c->id, c->verdict, excused);
      r.verdict = j.verdict;
      r.reason = j.reason;
    }
  }
}

}  // namespace breakout
