// A file descriptor that becomes readable, for good, when the flag of install_interrupt_flag is set by a signal.
//
// Why: without it, a run waiting for Ctrl-C must wake every 10 ms to look at the flag (an
// epoll_wait return and two timerfd_settime each time). The signal
// handler also writes one byte to a pipe that nobody reads, so every epoll waiting on its read
// end wakes at once (level-triggered, epoll(7)), however many run_process calls wait.
#pragma once

#include <atomic>

namespace breakout {

// The read end of the interrupt pipe when `flag` is the flag install_interrupt_flag installed
// (only its signal handler sets that flag), else -1: the caller keeps polling `flag`.
int interrupt_wake_fd(const std::atomic<bool>* flag);

}  // namespace breakout
