// Windows LineChannel: overlapped named pipes with deadlines, a stderr drain thread, the child in a job.
//
// The contract of platform/line_channel.h as posix/line_channel.cc keeps it: lines of at
// most max_line bytes (more without '\n' is kTooLong), every wait bounded, stderr drained
// all the time into the last stderr_keep bytes, the child killed and waited for on
// destruction. Windows specifics:
//  * stdin, stdout and stderr are one-instance overlapped named pipes (pipe_reader.h:
//    anonymous pipes have no overlapped I/O, Microsoft Learn "Anonymous Pipe Operations"),
//    so a write or read can be given up at its deadline (CancelIoEx, then the aborted
//    operation's completion is waited for, "CancelIoEx function").
//  * the child starts suspended inside the box's job (launch.h); without a box, inside a
//    job of the channel's own, with KILL_ON_JOB_CLOSE, so nothing it started outlives us.
//  * a "\r\n" line end counts as '\n' (text-mode writers on Windows).
//  * kill() is TerminateProcess of the child only, like POSIX's SIGKILL to the pid; the
//    "wait status" is the exit code (GetExitCodeProcess), win::kKilledExitCode when killed.
#include "harness/platform/line_channel.h"

#include <windows.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "harness/core/error.h"
#include "harness/platform/line_splitter.h"
#include "harness/platform/stderr_tail.h"
#include "harness/platform/win/containment.h"
#include "harness/platform/win/job.h"
#include "harness/platform/win/launch.h"
#include "harness/platform/win/pipe_reader.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

DWORD remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<DWORD>(left);
}

UniqueHandle manual_event() {
  UniqueHandle e(::CreateEventW(nullptr, TRUE, FALSE, nullptr));
  if (!e) win::throw_last_error("CreateEventW");
  return e;
}

// Waits for an overlapped operation on `h` until `deadline`; cancels it when the deadline
// passes (the aborted operation is still waited for: the kernel writes into `ov` until then).
// Returns the completed byte count, or nullopt with *err (ERROR_OPERATION_ABORTED on timeout).
std::optional<DWORD> finish_overlapped(HANDLE h, OVERLAPPED* ov, Clock::time_point deadline, DWORD* err) {
  if (::WaitForSingleObject(ov->hEvent, remaining_ms(deadline)) != WAIT_OBJECT_0) ::CancelIoEx(h, ov);
  DWORD n = 0;
  if (::GetOverlappedResult(h, ov, &n, TRUE)) return n;
  *err = ::GetLastError();
  return std::nullopt;
}

class WinLineChannel final : public LineChannel {
 public:
  WinLineChannel(const LaunchSpec& spec, Containment* box, const Limits& limits)
      : lines_(limits.max_line, /*crlf=*/true),
        err_kept_(limits.stderr_keep),
        err_reader_(&err_kept_.tail, &err_kept_.total, limits.stderr_keep, win::PipeReader::Keep::kTail) {
    win::PipePair in = win::create_overlapped_pipe(/*inbound=*/false);
    win::PipePair out = win::create_overlapped_pipe(/*inbound=*/true);
    in_event_ = manual_event();
    out_event_ = manual_event();
    stop_stderr_ = manual_event();
    if (box == nullptr) own_job_.emplace(win::JobObject::create());
    const win::JobObject& job = box != nullptr ? box->impl().job : *own_job_;
    win::Child child = win::launch_in_job(spec, job, in.client.get(), out.client.get(), err_reader_.child_end());
    process_ = std::move(child.process);
    pid_ = static_cast<int>(child.pid);
    // Our copies of the child's ends go: EOF on stdout/stderr then means the child (and
    // whatever inherited them) closed them.
    in_ = std::move(in.server);
    out_ = std::move(out.server);
    err_reader_.close_child_end();
    err_reader_.start();
    stderr_thread_ = std::thread([this] { drain_stderr(); });
  }

  ~WinLineChannel() override {
    {
      std::lock_guard lock(wait_mu_);
      if (!reaped_) {
        ::TerminateProcess(process_.get(), win::kKilledExitCode);
        ::WaitForSingleObject(process_.get(), 5000);  // bounded: termination is asynchronous
      }
    }
    ::SetEvent(stop_stderr_.get());  // a grandchild may still hold stderr open
    if (stderr_thread_.joinable()) stderr_thread_.join();
    if (pending_) {  // the kernel writes into chunk_/out_ov_ until the aborted read completes
      DWORD n = 0;
      if (::CancelIoEx(out_.get(), &out_ov_) || ::GetLastError() != ERROR_NOT_FOUND)
        ::GetOverlappedResult(out_.get(), &out_ov_, &n, TRUE);
    }
    std::lock_guard lock(err_kept_.mu);
    err_reader_.stop();
  }

  void send_line(std::string_view line, std::chrono::milliseconds timeout) override {
    check(static_cast<bool>(in_), "driver stdin already closed");
    std::string data(line);
    data.push_back('\n');
    const auto deadline = Clock::now() + timeout;
    std::size_t off = 0;
    while (off < data.size()) {
      OVERLAPPED ov{};
      ov.hEvent = in_event_.get();
      const DWORD want = static_cast<DWORD>(std::min<std::size_t>(data.size() - off, 64 * 1024));
      DWORD n = 0, err = 0;
      std::optional<DWORD> done;
      if (::WriteFile(in_.get(), data.data() + off, want, &n, &ov)) {
        done = n;
      } else if ((err = ::GetLastError()) == ERROR_IO_PENDING) {
        done = finish_overlapped(in_.get(), &ov, deadline, &err);
      }
      if (!done) {
        // Microsoft Learn, "System Error Codes": ERROR_NO_DATA "The pipe is being closed",
        // ERROR_BROKEN_PIPE: the reading end is gone.
        if (err == ERROR_NO_DATA || err == ERROR_BROKEN_PIPE) throw Error("driver closed its stdin");
        if (err == ERROR_OPERATION_ABORTED) throw Error("driver stopped reading its stdin");
        win::throw_last_error("write to driver", err);
      }
      off += *done;
      check(*done > 0 || Clock::now() < deadline, "driver stopped reading its stdin");
    }
  }

  Read read_line(std::string* line, std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (const auto got = lines_.next(line)) return *got;
      if (eof_) return Read::kEof;
      if (!pending_) {
        out_ov_ = OVERLAPPED{};
        out_ov_.hEvent = out_event_.get();
        DWORD n = 0;
        if (::ReadFile(out_.get(), chunk_.data(), static_cast<DWORD>(chunk_.size()), &n, &out_ov_)) {
          lines_.append(chunk_.data(), n);
          continue;
        }
        if (::GetLastError() != ERROR_IO_PENDING) {
          eof_ = true;  // ERROR_BROKEN_PIPE: every writer closed its end
          continue;
        }
        pending_ = true;
      }
      // A read left pending at a timeout stays pending for the next call (no bytes lost).
      if (::WaitForSingleObject(out_event_.get(), remaining_ms(deadline)) != WAIT_OBJECT_0) return Read::kTimeout;
      DWORD n = 0;
      pending_ = false;
      if (::GetOverlappedResult(out_.get(), &out_ov_, &n, FALSE)) lines_.append(chunk_.data(), n);
      else eof_ = true;
    }
  }

  void close_input() override { in_.reset(); }

  std::optional<int> wait_exit(std::chrono::milliseconds timeout) override {
    // Not under the lock: kill() from another thread must not wait for this wait.
    if (::WaitForSingleObject(process_.get(), static_cast<DWORD>(std::max<long long>(0, timeout.count()))) !=
        WAIT_OBJECT_0)
      return std::nullopt;
    std::lock_guard lock(wait_mu_);
    if (reaped_) return status_;
    DWORD code = 0;
    ::GetExitCodeProcess(process_.get(), &code);
    reaped_ = true;
    status_ = static_cast<int>(code);
    return status_;
  }

  void kill() override {
    std::lock_guard lock(wait_mu_);
    if (!reaped_) ::TerminateProcess(process_.get(), win::kKilledExitCode);
  }
  int pid() const override { return pid_; }
  void finish_stderr(std::chrono::milliseconds timeout) override {
    err_kept_.wait_done(timeout);
    ::SetEvent(stop_stderr_.get());
  }
  void catch_up_stderr(std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    std::size_t goal = 0;
    {
      std::lock_guard lock(err_kept_.mu);  // the drain thread takes reads under it
      const std::size_t unread = err_reader_.unread();
      if (unread == 0) return;
      goal = err_kept_.total + unread;
    }
    err_kept_.wait_counted(goal, deadline);
  }
  std::string stderr_tail() const override { return err_kept_.copy(); }
  std::size_t stderr_total() const override { return err_kept_.count(); }

 private:
  void drain_stderr() {
    for (;;) {
      {
        std::lock_guard lock(err_kept_.mu);
        if (!err_reader_.open()) break;
      }
      const HANDLE waits[2] = {err_reader_.event(), stop_stderr_.get()};
      const DWORD w = ::WaitForMultipleObjects(2, waits, FALSE, INFINITE);
      if (w != WAIT_OBJECT_0) break;  // stop, or a failed wait
      std::lock_guard lock(err_kept_.mu);
      err_reader_.on_signalled();  // never blocks: takes a completed read, issues the next
      err_kept_.cv.notify_all();   // catch_up_stderr waits on the count
    }
    err_kept_.mark_done();
  }

  std::optional<win::JobObject> own_job_;
  UniqueHandle process_;
  int pid_ = -1;
  std::mutex wait_mu_;
  bool reaped_ = false;
  int status_ = 0;
  UniqueHandle in_, out_, in_event_, out_event_, stop_stderr_;
  OVERLAPPED out_ov_{};
  bool pending_ = false;
  std::string chunk_ = std::string(64 * 1024, '\0');
  LineSplitter lines_;
  bool eof_ = false;
  StderrTail err_kept_;
  win::PipeReader err_reader_;  // after err_kept_: it writes into its tail and total
  std::thread stderr_thread_;
};

}  // namespace

std::unique_ptr<LineChannel> LineChannel::start(const LaunchSpec& spec, Containment* box, const Limits& limits) {
  return std::make_unique<WinLineChannel>(spec, box, limits);
}

// The Windows "wait status" is the exit code (GetExitCodeProcess).
std::string describe_wait_status(int status) {
  if (static_cast<UINT>(status) == win::kKilledExitCode) return "killed (TerminateProcess/TerminateJobObject)";
  return "exited with status " + std::to_string(static_cast<unsigned>(status));
}

}  // namespace breakout
