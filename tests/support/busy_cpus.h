// Threads that spin until destroyed: a loaded runner, where a helper thread is not scheduled at once.
//
// For tests of races that an idle machine hides (a drain thread that lags its channel's answer):
// twice as many spinners as cores, so the thread under test waits for a time slice.
//
//   BusyCpus load;  // spinning until the end of the scope
#pragma once

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace breakout::test_support {

class BusyCpus {
 public:
  BusyCpus() {
    for (unsigned i = 0; i < 2 * std::max(1u, std::thread::hardware_concurrency()); ++i)
      spinners_.emplace_back([this] {
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
  }
  ~BusyCpus() {
    stop_ = true;
    for (auto& t : spinners_) t.join();
  }
  BusyCpus(const BusyCpus&) = delete;
  BusyCpus& operator=(const BusyCpus&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> spinners_;
};

}  // namespace breakout::test_support
