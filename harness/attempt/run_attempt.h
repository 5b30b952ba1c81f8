// Run one execution end to end and judge it from outside (the checklist is in run_attempt.cc).
#pragma once

#include "harness/attempt/record.h"
#include "harness/attempt/run_context.h"

namespace breakout {

// Never throws: any failure becomes verdict "error" with the reason.
AttemptRecord run_attempt(const Execution& execution, const RunContext& context);

// The record's descriptive fields (id, class, expectation...) without running.
AttemptRecord describe(const Execution& execution);

}  // namespace breakout
