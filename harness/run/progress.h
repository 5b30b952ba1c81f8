// The run's progress for a log that is not a terminal: one line every interval, so a CI log is not
// silent between "running N attempts" and the summary (a terminal gets the live counter instead).
//
//   ProgressTicker ticker(std::cerr, progress_interval(), plan.size());
//   ... ticker.record(record) after each execution ...   // the destructor stops the ticker
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "harness/attempt/record.h"

namespace breakout {

// The interval between two lines: 10 s, or BREAKOUT_PROGRESS_INTERVAL_S (seconds, > 0, fractions
// allowed), a test hook so a test needs no 10-second run. A value that is not a positive number is ignored.
std::chrono::milliseconds progress_interval();

// "breakout: progress: 12/40 executions done, 1 escape so far, 0:30 elapsed"
std::string progress_line(std::size_t done, std::size_t total, std::size_t escapes, std::chrono::seconds elapsed);

class ProgressTicker {
 public:
  ProgressTicker(std::ostream& out, std::chrono::milliseconds interval, std::size_t total);
  ~ProgressTicker();  // stops and joins the thread; prints nothing more
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

  // One execution finished (any thread).
  void record(const AttemptRecord& r);

 private:
  void loop();

  std::ostream& out_;
  const std::chrono::milliseconds interval_;
  const std::size_t total_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mu_;
  std::condition_variable wake_;
  std::size_t done_ = 0, escapes_ = 0;
  bool stop_ = false;
  std::thread thread_;  // last: started once everything it reads is set
};

}  // namespace breakout
