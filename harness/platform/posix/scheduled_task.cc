// ScheduledTaskGuard on POSIX: no attempt registers a scheduled task there (scheduled_task.h).
#include "harness/platform/scheduled_task.h"

namespace breakout {

std::string ScheduledTaskGuard::remove() noexcept {
  if (outcome_.empty()) outcome_ = "absent";
  return outcome_;
}

}  // namespace breakout
