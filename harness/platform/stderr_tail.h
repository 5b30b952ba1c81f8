// A LineChannel's stderr as kept: the last `keep` bytes and a count of all, filled by its drain thread, read by callers.
//
// Shared by platform/posix and platform/win line_channel.cc: the drain thread fills `tail` and
// `total` under `mu` (POSIX through append(); Windows through win::PipeReader, which is handed
// the two fields) and calls mark_done() when stderr ends; finish_stderr() waits for that.
// Portable, header-only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>

namespace breakout {

struct StderrTail {
  explicit StderrTail(std::size_t keep_bytes) : keep(keep_bytes) {}

  // Counts `n` bytes and keeps the last `keep` of everything seen. Call with `mu` held.
  void append_locked(const char* data, std::size_t n) {
    total += n;
    tail.append(data, n);
    if (tail.size() > keep) tail.erase(0, tail.size() - keep);
    cv.notify_all();
  }
  void mark_done() {
    std::lock_guard lock(mu);
    done = true;
    cv.notify_all();
  }
  // Waits up to `timeout` for mark_done().
  void wait_done(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu);
    cv.wait_for(lock, timeout, [this] { return done; });
  }
  // Waits until `goal` bytes are counted, stderr ended, or `deadline`.
  void wait_counted(std::size_t goal, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mu);
    cv.wait_until(lock, deadline, [&] { return total >= goal || done; });
  }
  std::string copy() const {
    std::lock_guard lock(mu);
    return tail;
  }
  std::size_t count() const {
    std::lock_guard lock(mu);
    return total;
  }

  const std::size_t keep;
  mutable std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::string tail;       // guarded by mu
  std::size_t total = 0;  // guarded by mu
};

}  // namespace breakout
