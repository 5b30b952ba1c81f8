// Internal to the Windows platform layer: what a Containment is on Windows (a job object, job.h).
#pragma once

#include "harness/platform/process.h"
#include "harness/platform/win/job.h"

namespace breakout {

struct Containment::Impl {
  // Every run_process with this box assigns its child here (launch.h); closing it kills what
  // is left (KILL_ON_JOB_CLOSE).
  win::JobObject job;
};

}  // namespace breakout
