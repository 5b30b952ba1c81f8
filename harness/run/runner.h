// Run every execution of a plan on N workers, then settle denials against their controls.
#pragma once

#include <functional>
#include <vector>

#include "harness/attempt/record.h"
#include "harness/attempt/run_context.h"

namespace breakout {

struct RunOutcome {
  std::vector<AttemptRecord> records;  // the judged executions, in plan order
  std::size_t planned = 0;             // executions in the plan
  bool interrupted = false;            // the run's cancel flag was set (SIGINT/SIGTERM)
};

// `progress(done, total, last)` is called after each execution (from worker threads, serialised).
// Once `context.cancel` is set no execution starts; what was running when it was set is not judged.
RunOutcome run_all(const std::vector<Execution>& plan, const RunContext& context, int jobs,
                   const std::function<void(std::size_t, std::size_t, const AttemptRecord&)>& progress);

// A passing denial counts only if every allowed target of its group passed (docs/verdicts.md).
void apply_controls(std::vector<AttemptRecord>& records);

// The records of an interrupted run worth keeping (every record carries its id, group and role, judged
// or not): those judged (judged[i]), with controls applied; a
// denial that passed while a control of its group was not judged is dropped too, since that control
// could still have turned it into `error` (a kept verdict is the one the full run would give).
std::vector<AttemptRecord> settle_judged(std::vector<AttemptRecord> records, const std::vector<char>& judged);

}  // namespace breakout
