// A child process spoken to in lines: requests on its stdin, answers on its stdout, stderr kept as a bounded tail.
//
// Used for driver spawners (docs/drivers.md). Everything the child sends is
// hostile input: lines are bounded (`max_line`), stderr is drained all the
// time into a bounded tail so a flood can neither block the child nor grow our
// memory, and every wait has a deadline.
//
//   auto ch = LineChannel::start(spec, &box, {});
//   ch->send_line(R"({"id":1,"op":"hello","protocol":1})", 5s);
//   std::string line;
//   if (ch->read_line(&line, 5s) == LineChannel::Read::kLine) ...
//   ch->close_input(); ch->wait_exit(2s); // the destructor SIGKILLs and reaps what is left
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/platform/process.h"

namespace breakout {

class LineChannel {
 public:
  struct Limits {
    std::size_t max_line = 64u << 20;     // longest accepted line (an exec answer carries the output)
    std::size_t stderr_keep = 64u << 10;  // bytes of stderr kept (the last ones)
  };
  enum class Read { kLine, kTimeout, kEof, kTooLong };

  // Starts spec.argv (spec.timeout/max_capture are ignored) in `box`. Throws Error.
  static std::unique_ptr<LineChannel> start(const LaunchSpec& spec, Containment* box, const Limits& limits);
  virtual ~LineChannel() = default;  // SIGKILLs the child if still running, reaps it, closes everything

  // Writes `line` + '\n'. Throws Error when the child stops reading for `timeout` or closed its stdin.
  virtual void send_line(std::string_view line, std::chrono::milliseconds timeout) = 0;
  // Reads the next line (without '\n'). One reader at a time.
  virtual Read read_line(std::string* line, std::chrono::milliseconds timeout) = 0;
  virtual void close_input() = 0;
  // Waits up to `timeout` for the child to exit; its wait status when it did.
  virtual std::optional<int> wait_exit(std::chrono::milliseconds timeout) = 0;
  virtual void kill() = 0;  // SIGKILL to the child (not reaped here)
  virtual int pid() const = 0;
  // Waits up to `timeout` for stderr to reach EOF (every byte counted), then stops draining.
  virtual void finish_stderr(std::chrono::milliseconds timeout) = 0;
  // Waits up to `timeout` until the bytes already waiting in the stderr pipe are counted, so a
  // record taken after an answer counts everything the child wrote before that answer. The goal is
  // fixed on entry: a child that keeps writing cannot stretch the wait past what was there.
  virtual void catch_up_stderr(std::chrono::milliseconds timeout) = 0;
  virtual std::string stderr_tail() const = 0;
  virtual std::size_t stderr_total() const = 0;
};

// "exited with status 3", "killed by signal 9".
std::string describe_wait_status(int status);

}  // namespace breakout
