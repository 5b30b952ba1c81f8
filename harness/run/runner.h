// Run every execution of a plan on N workers, then settle denials against their controls.
#pragma once

#include <functional>
#include <vector>

#include "harness/attempt/record.h"
#include "harness/attempt/run_context.h"

namespace breakout {

// `progress(done, total, last)` is called after each execution (from worker threads, serialised).
std::vector<AttemptRecord> run_all(const std::vector<Execution>& plan, const RunContext& context, int jobs,
                                   const std::function<void(std::size_t, std::size_t, const AttemptRecord&)>& progress);

// A passing denial counts only if every allowed target of its group passed (docs/verdicts.md).
void apply_controls(std::vector<AttemptRecord>& records);

}  // namespace breakout
