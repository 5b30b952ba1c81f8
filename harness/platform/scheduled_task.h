// The harness's safety net for scheduled tasks an attempt may register (spawn-escape --technique schtasks).
//
//   ScheduledTaskGuard task("breakout-" + tag);   // before the spawn
//   rec.evidence["scheduled_task"] = task.remove(); // after judging; the destructor removes it otherwise
//
// Windows: deletes the task of that name from the Task Scheduler's root folder (Task
// Scheduler 2.0, ITaskFolder::DeleteTask), whatever the probe and its beater did (host safety:
// a task outlives every process). POSIX: nothing to remove (no technique registers one there).
#pragma once

#include <string>
#include <utility>

namespace breakout {

class ScheduledTaskGuard {
 public:
  explicit ScheduledTaskGuard(std::string name) : name_(std::move(name)) {}
  ~ScheduledTaskGuard() { remove(); }
  ScheduledTaskGuard(const ScheduledTaskGuard&) = delete;
  ScheduledTaskGuard& operator=(const ScheduledTaskGuard&) = delete;
  // Removes the task once (later calls return the first answer): "removed", "absent" (there was
  // none), or why it could not be removed. Never throws.
  std::string remove() noexcept;

 private:
  std::string name_;
  std::string outcome_;  // empty until remove() ran
};

}  // namespace breakout
