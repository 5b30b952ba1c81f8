// A file descriptor that becomes readable, for good, when the flag of install_interrupt_flag is set by a signal.
//
// run_process waited for Ctrl-C by waking every 10 ms to look at the flag: one to three
// wake-ups (an epoll_wait return and two timerfd_settime) per live-fuzzer case. The signal
// handler now also writes one byte to a pipe that nobody reads, so every epoll waiting on
// its read end wakes at once (level-triggered), however many run_process calls wait.
#pragma once

#include <atomic>

namespace breakout {

// The read end of the interrupt pipe when `flag` is the flag install_interrupt_flag installed
// (only its signal handler sets that flag), else -1: the caller keeps polling `flag`.
int interrupt_wake_fd(const std::atomic<bool>* flag);

}  // namespace breakout
