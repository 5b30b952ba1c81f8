// Worker pool over the plan; controls applied once everything ran (or once an interrupt stopped it).
#include "harness/run/runner.h"

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "harness/attempt/run_attempt.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation.h"

namespace breakout {

RunOutcome run_all(const std::vector<Execution>& plan, const RunContext& ctx, int jobs,
                   const std::function<void(std::size_t, std::size_t, const AttemptRecord&)>& progress) {
  auto cancelled = [&] { return ctx.cancel && ctx.cancel->load(); };
  std::vector<AttemptRecord> records(plan.size());
  std::vector<char> judged(plan.size(), 0);  // char, not bool: each worker writes its own element
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex mu;
  auto run_one = [&](std::size_t i) {
    records[i] = run_attempt(plan[i], ctx);
    // Set while it ran: the kill may have shaped the verdict. Set just after it returned: dropped
    // too (the flag cannot tell), which only costs one honest record.
    judged[i] = !cancelled();
    std::lock_guard lock(mu);
    ++done;
    if (progress) progress(done, plan.size(), records[i]);
  };
  // A class that runs alone (ClassSpec::alone: its oracle mounts on the host) waits for the pool,
  // then its executions run one by one.
  auto runs_alone = [&](std::size_t i) { return class_spec(plan[i].attempt->klass).alone; };
  auto worker = [&] {
    for (std::size_t i = next++; i < plan.size() && !cancelled(); i = next++)
      if (!runs_alone(i)) run_one(i);
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  for (std::size_t i = 0; i < plan.size() && !cancelled(); ++i)
    if (runs_alone(i)) run_one(i);
  RunOutcome out;
  out.planned = plan.size();
  out.interrupted = cancelled();
  if (out.interrupted) {
    for (std::size_t i = 0; i < plan.size(); ++i)  // never started: settle_judged needs to know its group
      if (!judged[i]) {
        records[i].id = plan[i].id;
        records[i].group = plan[i].group;
        records[i].role = role_of(plan[i].expectation.value);
      }
    out.records = settle_judged(std::move(records), judged);
  } else {
    apply_controls(records);
    out.records = std::move(records);
  }
  return out;
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

std::vector<AttemptRecord> settle_judged(std::vector<AttemptRecord> records, const std::vector<char>& judged) {
  std::set<std::string> control_missing;  // groups with a control that was not judged
  std::vector<AttemptRecord> kept;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const bool ok = i < judged.size() && judged[i];
    if (!ok && records[i].role == "allow") control_missing.insert(records[i].group);
    if (ok) kept.push_back(std::move(records[i]));
  }
  apply_controls(kept);
  std::erase_if(kept, [&](const AttemptRecord& r) {
    return r.role == "deny" && r.verdict == Verdict::kPass && control_missing.count(r.group);
  });
  return kept;
}

}  // namespace breakout
