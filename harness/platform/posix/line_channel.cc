// POSIX LineChannel: pipes with poll(2) deadlines, a stderr drain thread, waitpid reaping.
#include "harness/platform/line_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "harness/core/error.h"
#include "harness/platform/line_splitter.h"
#include "harness/platform/posix/spawn.h"
#include "harness/platform/posix/unique_fd.h"
#include "harness/platform/stderr_tail.h"

namespace breakout {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// A pipe whose both ends are CLOEXEC and numbered >= 3 (see run_process.cc's above_stdio).
std::pair<UniqueFd, UniqueFd> make_pipe() {
  int p[2];
  check(::pipe2(p, O_CLOEXEC) == 0, "pipe2");
  UniqueFd r(p[0]), w(p[1]);
  for (UniqueFd* f : {&r, &w}) {
    if (f->get() < 3) {
      const int high = ::fcntl(f->get(), F_DUPFD_CLOEXEC, 3);
      if (high < 0) throw_errno("fcntl F_DUPFD_CLOEXEC");
      f->reset(high);
    }
  }
  return {std::move(r), std::move(w)};
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000));
}

class PosixLineChannel final : public LineChannel {
 public:
  PosixLineChannel(const LaunchSpec& spec, Containment* box, const Limits& limits)
      : lines_(limits.max_line, /*crlf=*/false), err_kept_(limits.stderr_keep) {
    auto [in_r, in_w] = make_pipe();
    auto [out_r, out_w] = make_pipe();
    auto [err_r, err_w] = make_pipe();
    auto [wake_r, wake_w] = make_pipe();
    std::string why;
    pid_ = spawn_with_stdio(spec, box, in_r.get(), out_w.get(), err_w.get(), &why);
    check(pid_ > 0, "could not start " + (spec.argv.empty() ? std::string("?") : spec.argv[0]) + ": " + why);
    in_ = std::move(in_w);
    out_ = std::move(out_r);
    err_ = std::move(err_r);
    wake_r_ = std::move(wake_r);
    wake_w_ = std::move(wake_w);
    // Non-blocking ends on our side: every wait goes through poll with a deadline.
    for (int fd : {in_.get(), out_.get(), err_.get()}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    stderr_thread_ = std::thread([this] { drain_stderr(); });
  }

  ~PosixLineChannel() override {
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    const char byte = 'x';
    (void)!::write(wake_w_.get(), &byte, 1);  // a grandchild may still hold stderr open
    if (stderr_thread_.joinable()) stderr_thread_.join();
  }

  void send_line(std::string_view line, std::chrono::milliseconds timeout) override {
    check(in_.get() >= 0, "driver stdin already closed");
    std::string data(line);
    data.push_back('\n');
    const auto deadline = Clock::now() + timeout;
    std::size_t off = 0;
    while (off < data.size()) {
      const ssize_t n = ::write(in_.get(), data.data() + off, data.size() - off);
      if (n > 0) {
        off += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EPIPE) throw Error("driver closed its stdin");
      check(n < 0 && errno == EAGAIN, std::string("write to driver: ") + std::strerror(errno));
      check(Clock::now() < deadline, "driver stopped reading its stdin");
      pollfd p{in_.get(), POLLOUT, 0};
      ::poll(&p, 1, remaining_ms(deadline));
    }
  }

  Read read_line(std::string* line, std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (const auto got = lines_.next(line)) return *got;
      if (eof_) return Read::kEof;
      pollfd p{out_.get(), POLLIN, 0};
      const int left = remaining_ms(deadline);
      const int ready = ::poll(&p, 1, left);
      if (ready == 0 && Clock::now() >= deadline) return Read::kTimeout;
      if (ready <= 0) continue;
      char chunk[64 * 1024];
      const ssize_t n = ::read(out_.get(), chunk, sizeof chunk);
      if (n > 0) lines_.append(chunk, static_cast<std::size_t>(n));
      else if (n == 0) eof_ = true;
      else if (errno != EAGAIN && errno != EINTR) eof_ = true;
    }
  }

  void close_input() override { in_.reset(); }

  std::optional<int> wait_exit(std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    auto nap = 1ms;
    for (;;) {
      std::unique_lock lock(wait_mu_);  // the reader thread and a caller may both ask
      if (reaped_) return status_;
      int status = 0;
      const pid_t got = ::waitpid(pid_, &status, WNOHANG);
      if (got == pid_ || (got < 0 && errno == ECHILD)) {
        reaped_ = true;
        status_ = status;
        return status_;
      }
      lock.unlock();
      if (Clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::milliseconds(20));
    }
  }

  void kill() override {
    std::lock_guard lock(wait_mu_);
    if (!reaped_) ::kill(pid_, SIGKILL);
  }
  int pid() const override { return pid_; }
  void finish_stderr(std::chrono::milliseconds timeout) override {
    err_kept_.wait_done(timeout);
    const char byte = 'x';
    (void)!::write(wake_w_.get(), &byte, 1);
  }
  void catch_up_stderr(std::chrono::milliseconds timeout) override {
    // The drain thread reads and counts under err_kept_.mu, so under it FIONREAD (pipe(7)) is
    // exactly what is written and not yet counted.
    const auto deadline = Clock::now() + timeout;
    std::size_t goal = 0;
    {
      std::lock_guard lock(err_kept_.mu);
      int unread = 0;
      if (::ioctl(err_.get(), FIONREAD, &unread) != 0 || unread <= 0) return;
      goal = err_kept_.total + static_cast<std::size_t>(unread);
    }
    err_kept_.wait_counted(goal, deadline);
  }
  std::string stderr_tail() const override { return err_kept_.copy(); }
  std::size_t stderr_total() const override { return err_kept_.count(); }

 private:
  void drain_stderr() {
    struct Done {
      PosixLineChannel* self;
      ~Done() { self->err_kept_.mark_done(); }
    } done{this};
    char chunk[64 * 1024];
    for (;;) {
      pollfd p[2] = {{err_.get(), POLLIN, 0}, {wake_r_.get(), POLLIN, 0}};
      if (::poll(p, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (p[1].revents != 0 && p[0].revents == 0) return;
      std::lock_guard lock(err_kept_.mu);  // read and count as one step (catch_up_stderr)
      const ssize_t n = ::read(err_.get(), chunk, sizeof chunk);
      if (n == 0) return;
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        return;
      }
      err_kept_.append_locked(chunk, static_cast<std::size_t>(n));
    }
  }

  std::mutex wait_mu_;
  int pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  UniqueFd in_, out_, err_, wake_r_, wake_w_;
  LineSplitter lines_;
  bool eof_ = false;
  StderrTail err_kept_;
  std::thread stderr_thread_;
};

}  // namespace

std::unique_ptr<LineChannel> LineChannel::start(const LaunchSpec& spec, Containment* box, const Limits& limits) {
  // A driver that exits while we write must give us EPIPE, not kill the harness
  // with SIGPIPE (pipe(7)). Children get default dispositions back (vfork_spawn.cc).
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
  return std::make_unique<PosixLineChannel>(spec, box, limits);
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

}  // namespace breakout
