// Expand a suite into executions (attempt × policy × target), with skips decided up front.
#pragma once

#include <string>
#include <vector>

#include "harness/attempt/record.h"
#include "harness/model/scenario.h"

namespace breakout {

class Spawner;
class NonceListeners;

struct PlanOptions {
  std::string only;       // glob on attempt ids or execution ids; a match pulls in its whole group (controls)
  std::string platform;   // "linux" / "windows"
};

std::vector<Execution> plan_executions(const Suite& suite, const Spawner& spawner,
                                       const NonceListeners* listeners, const PlanOptions& options);

}  // namespace breakout
