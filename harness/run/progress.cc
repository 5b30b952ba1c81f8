// A thread that writes one progress line per interval while the run's workers execute.
#include "harness/run/progress.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace breakout {

std::chrono::milliseconds progress_interval() {
  constexpr std::chrono::milliseconds kDefault{10'000};
  const char* env = std::getenv("BREAKOUT_PROGRESS_INTERVAL_S");
  if (!env || !*env) return kDefault;
  char* end = nullptr;
  const double s = std::strtod(env, &end);
  if (*end != '\0' || !(s > 0) || s > 86400) return kDefault;
  return std::chrono::milliseconds(std::max<long long>(1, static_cast<long long>(s * 1000)));
}

std::string progress_line(std::size_t done, std::size_t total, std::size_t escapes, std::chrono::seconds elapsed) {
  const long long secs = elapsed.count();
  const std::string ss = std::to_string(secs % 60);
  return "breakout: progress: " + std::to_string(done) + "/" + std::to_string(total) + " executions done, " +
         std::to_string(escapes) + (escapes == 1 ? " escape" : " escapes") + " so far, " + std::to_string(secs / 60) +
         ":" + (ss.size() < 2 ? "0" : "") + ss + " elapsed\n";
}

ProgressTicker::ProgressTicker(std::ostream& out, std::chrono::milliseconds interval, std::size_t total)
    : out_(out), interval_(interval), total_(total), thread_([this] { loop(); }) {}

ProgressTicker::~ProgressTicker() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ProgressTicker::record(const AttemptRecord& r) {
  std::lock_guard lock(mu_);
  ++done_;
  if (r.verdict == Verdict::kEscape) ++escapes_;
}

void ProgressTicker::loop() {
  std::unique_lock lock(mu_);
  auto next = start_ + interval_;
  while (!wake_.wait_until(lock, next, [this] { return stop_; })) {
    const auto now = std::chrono::steady_clock::now();
    const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(now - start_);
    // Built first, written with one call: the line never interleaves with another writer's. Written
    // unlocked: a slow log reader must not stall a worker in record().
    const std::string line = progress_line(done_, total_, escapes_, elapsed);
    lock.unlock();
    out_.write(line.data(), static_cast<std::streamsize>(line.size()));
    out_.flush();
    lock.lock();
    next += interval_;
    if (next <= now) next = now + interval_;  // after a stall, the next line one interval on, not a burst
  }
}

}  // namespace breakout
