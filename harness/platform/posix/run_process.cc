// POSIX run_process: start one child (spawn.h), then one Asio loop drains stdout/stderr, waits on its pidfd, enforces the timeout.
//
// Why it is built this way:
//  * process::v2::basic_process is built from the pid and pidfd vfork_spawn returns and waits
//    through the pidfd with Asio: async_wait, no SIGCHLD handler to share with the rest of the
//    harness. terminate() is kill(pid, SIGKILL) on the direct child only (process.h: the
//    spawner is a black box; its tree is the box's to kill).
//  * stdout/stderr are asio::readable_pipe read concurrently (a child blocked writing one pipe
//    while we wait on the other would never exit); the timeout and the post-exit drain bound
//    are asio::steady_timer. Cancellation by the interrupt flag wakes the same epoll through
//    the interrupt pipe (interrupt_wake.h); any other cancel flag is polled every 10 ms.
//  * pipes and /dev/null are created with pipe2(O_CLOEXEC)/open(O_CLOEXEC), so a concurrent
//    spawn from another thread cannot inherit them even in the window before its child marks
//    its fds (vfork_spawn.cc, mark_cloexec_from).
#ifndef BOOST_PROCESS_V2_SEPARATE_COMPILATION
#define BOOST_PROCESS_V2_SEPARATE_COMPILATION 1
#endif
#ifndef BOOST_PROCESS_USE_STD_FS
#define BOOST_PROCESS_USE_STD_FS 1
#endif

#include "harness/platform/process.h"

// Boost 1.81's process/v2 headers use these without including them.
#include <boost/optional.hpp>
#include <boost/type_traits.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2/process.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "harness/platform/posix/interrupt_wake.h"
#include "harness/platform/posix/spawn.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

using Process = bp::basic_process<asio::io_context::executor_type>;

// How often a run waiting on the interrupt pipe still looks at the flag itself.
constexpr auto kCancelBackstop = 2s;

// Moves `fd` to a number >= 3 (CLOEXEC) so that dup2 onto 0/1/2 in the child
// can never clobber one of our own pipe ends (possible when the harness itself
// was started with a closed stdin/stdout/stderr).
int above_stdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return moved;
}

// start_child, with the child wrapped for Asio (async_wait on its pidfd). Until the process
// handle owns the child, a failure kills and reaps it: nothing is left behind.
std::optional<Process> launch(asio::io_context& ctx, const LaunchSpec& spec, Containment* box, int in_fd,
                              int out_fd, int err_fd, std::string* error, std::string* joined) {
  std::optional<vfork_spawn::Child> child = start_child(spec, box, in_fd, out_fd, err_fd, error);
  if (!child) return std::nullopt;
  struct ReapUnlessOwned {
    int pid;
    ~ReapUnlessOwned() {
      if (pid <= 0) return;
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  } guard{child->pid};
  if (child->joined != vfork_spawn::BoxJoin::kNone) *joined = vfork_spawn::to_string(child->joined);
  try {
    std::optional<Process> proc;
    proc.emplace(ctx.get_executor(), child->pid, child->pidfd.get());
    child->pidfd.release();  // owned by the process handle now
    guard.pid = -1;
    return proc;
  } catch (const std::exception& e) {
    // E.g. epoll registration of the pidfd failing.
    *error = "launch " + spec.argv[0] + ": " + e.what();
    return std::nullopt;
  }
}

// One of the child's output pipes, read until EOF (or closed by the drain bound).
struct Stream {
  Stream(asio::io_context& ctx, UniqueFd fd, std::string* keep, std::size_t* total)
      : pipe(ctx), keep(keep), total(total) {
    pipe.assign(fd.get());  // throws; `fd` still owns the descriptor until this succeeds
    fd.release();
  }
  asio::readable_pipe pipe;
  std::string* keep;
  std::size_t* total;
  bool open = true;
  std::vector<char> buf = std::vector<char>(64 * 1024);  // heap: run_process may run on a small thread stack
};

// The run of one started child, as named transitions of one Asio loop: output read, child
// reaped, timeout, drain bound passed, cancel requested; finished when the child is reaped
// and both pipes are done. Every handler only sets state and calls these; run() returns when
// no wait is left.
class Drain {
 public:
  Drain(asio::io_context& ctx, Process& proc, UniqueFd out_fd, UniqueFd err_fd, const LaunchSpec& spec,
        const std::atomic<bool>* cancel, Clock::time_point t0, LaunchResult& r)
      : spec_(spec), cancel_(cancel), t0_(t0), r_(r), detach_{proc, reaped_}, proc_(proc),
        out_(ctx, std::move(out_fd), &r.out, &r.out_total),
        err_(ctx, std::move(err_fd), &r.err, &r.err_total),
        timeout_timer_(ctx), cancel_timer_(ctx), drain_timer_(ctx) {
    // The interrupt flag is set only by its signal handler, which also makes the interrupt
    // pipe readable (interrupt_wake.h): wait for that with the child, no periodic wake-up.
    // The slow poll stays as a backstop (a flag stored without the signal); other cancel
    // flags (tests, callers' own) are polled every 10 ms.
    const int wake_fd = cancel != nullptr ? interrupt_wake_fd(cancel) : -1;
    if (wake_fd >= 0) {
      UniqueFd fd(::fcntl(wake_fd, F_DUPFD_CLOEXEC, 3));  // the descriptor object closes its own copy
      if (fd.get() >= 0) {
        wake_.emplace(ctx, fd.get());
        fd.release();
      }
    }
  }
  Drain(const Drain&) = delete;
  Drain& operator=(const Drain&) = delete;

  // Arms every wait, in this order: both pipes, the child, the timeout, the cancel flag.
  void start() {
    read_more(out_);
    read_more(err_);
    proc_.async_wait([this](const bp::error_code& e, int) { on_reaped(e); });
    if (spec_.timeout) {
      timeout_timer_.expires_after(*spec_.timeout);
      timeout_timer_.async_wait([this](const bp::error_code& te) {
        if (!te) on_timeout();
      });
    }
    if (cancel_ == nullptr) return;
    if (cancel_->load()) {
      on_cancel();
      return;
    }
    poll_cancel();
    if (wake_)
      wake_->async_wait(asio::posix::stream_descriptor::wait_read, [this](const bp::error_code& we) {
        if (we || finished_ || !cancel_->load()) return;  // cancelled by finish_if_done; the backstop covers the rest
        on_cancel();
      });
  }

 private:
  void read_more(Stream& s) {
    s.pipe.async_read_some(asio::buffer(s.buf),
                           [this, &s](const bp::error_code& e, std::size_t n) { on_output(s, e, n); });
  }

  // Bytes arrived (kept up to max_capture, counted all), or the pipe ended: eof, or closed
  // by the drain bound or a cancel.
  void on_output(Stream& s, const bp::error_code& e, std::size_t n) {
    if (n > 0) {
      *s.total += n;
      const std::size_t room = spec_.max_capture > s.keep->size() ? spec_.max_capture - s.keep->size() : 0;
      s.keep->append(s.buf.data(), std::min(n, room));
    }
    if (e) {
      s.open = false;
      bp::error_code ignored;
      s.pipe.close(ignored);
      finish_if_done();
      return;
    }
    read_more(s);
  }

  // The child is reaped: record how it ended; a grandchild still holding a pipe gets
  // drain_after_exit more.
  void on_reaped(const bp::error_code& e) {
    reaped_ = true;
    r_.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_);
    if (!e) {
      const int status = proc_.native_exit_code();
      if (WIFEXITED(status)) {
        r_.exited = true;
        r_.exit_code = WEXITSTATUS(status);
      } else if (WIFSIGNALED(status)) {
        r_.term_signal = WTERMSIG(status);
      }
    }  // else: waitpid failed (ECHILD when SIGCHLD is SIG_IGN): status unknown
    timeout_timer_.cancel();
    if (pipes_open()) {
      drain_timer_.expires_after(spec_.drain_after_exit);
      drain_timer_.async_wait([this](const bp::error_code& te) {
        if (!te) on_drain_bound();
      });
    }
    finish_if_done();
  }

  void on_timeout() {
    if (reaped_) return;
    r_.timed_out = true;
    kill_child();
  }

  void on_drain_bound() {
    if (!pipes_open()) return;
    r_.drain_timed_out = true;  // a grandchild still holds a pipe: stop reading
    close_pipes();
  }

  void on_cancel() {
    if (!reaped_) {
      r_.cancelled = true;
      kill_child();
    } else {
      close_pipes();  // cancelled while draining: stop now
    }
  }

  void poll_cancel() {
    cancel_timer_.expires_after(wake_ ? kCancelBackstop : 10ms);
    cancel_timer_.async_wait([this](const bp::error_code& te) {
      if (te || finished_) return;
      if (!cancel_->load()) {
        poll_cancel();
        return;
      }
      on_cancel();
    });
  }

  // Finished once the child is reaped and both pipes are done: every wait left is cancelled.
  // The cancel poll checks finished_ too: a timer whose wait already completed is not aborted
  // by cancel(), so without it a queued poll re-arms itself forever and run() never returns.
  void finish_if_done() {
    if (!reaped_ || pipes_open()) return;
    finished_ = true;
    timeout_timer_.cancel();
    cancel_timer_.cancel();
    drain_timer_.cancel();
    if (wake_) {
      bp::error_code ignored;
      wake_->cancel(ignored);
    }
  }

  bool pipes_open() const { return out_.open || err_.open; }

  void close_pipes() {
    bp::error_code ignored;
    out_.pipe.close(ignored);
    err_.pipe.close(ignored);
  }

  void kill_child() {
    bp::error_code ignored;
    proc_.terminate(ignored);  // kill(pid, SIGKILL): the direct child only; not yet reaped
  }

  // Once reaped, the pid may be recycled (even for a sibling run_process in another thread);
  // basic_process's destructor would waitpid+SIGKILL that pid. Destroyed after the pipes
  // and timers (declared before them), as the run's last step.
  struct DetachWhenReaped {
    Process& p;
    const bool& reaped;
    ~DetachWhenReaped() {
      if (reaped) p.detach();
    }
  };

  const LaunchSpec& spec_;
  const std::atomic<bool>* cancel_;
  Clock::time_point t0_;
  LaunchResult& r_;
  bool reaped_ = false;
  bool finished_ = false;
  DetachWhenReaped detach_;
  Process& proc_;
  Stream out_, err_;
  asio::steady_timer timeout_timer_, cancel_timer_, drain_timer_;
  std::optional<asio::posix::stream_descriptor> wake_;
};

}  // namespace

LaunchResult run_process(const LaunchSpec& spec, Containment* box, const std::atomic<bool>* cancel) {
  LaunchResult r;
  auto sys_fail = [&r](const std::string& step) {
    r.start_error = step + ": " + std::strerror(errno);
    return r;
  };
  // stdin: /dev/null, or the harness's pty when the attempt needs a controlling terminal (tty-inject).
  const bool tty = !spec.controlling_tty.empty();
  UniqueFd devnull(above_stdio(tty ? ::open(spec.controlling_tty.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC)
                                   : ::open("/dev/null", O_RDONLY | O_CLOEXEC)));
  if (devnull.get() < 0) return sys_fail(tty ? "open " + spec.controlling_tty : "open /dev/null");
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return sys_fail("pipe2");
  UniqueFd out_r(above_stdio(p[0])), out_w(above_stdio(p[1]));
  if (::pipe2(p, O_CLOEXEC) != 0) return sys_fail("pipe2");
  UniqueFd err_r(above_stdio(p[0])), err_w(above_stdio(p[1]));
  if (out_r.get() < 0 || out_w.get() < 0 || err_r.get() < 0 || err_w.get() < 0) return sys_fail("fcntl F_DUPFD");

  asio::io_context ctx;
  const auto t0 = Clock::now();
  std::optional<Process> proc = launch(ctx, spec, box, devnull.get(), out_w.get(), err_w.get(), &r.start_error,
                                       &r.box_join);
  out_w.reset();  // only the child (and what it passes them on to) holds the write ends now
  err_w.reset();
  devnull.reset();
  if (!proc) return r;
  r.started = true;
  r.pid = proc->id();
  {
    Drain drain(ctx, *proc, std::move(out_r), std::move(err_r), spec, cancel, t0, r);
    drain.start();
    ctx.run();
  }
  return r;
}

}  // namespace breakout
