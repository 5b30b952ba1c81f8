// Launch one spawner command: concurrent drain of stdout/stderr, timeout, containment.
//
// The harness treats the spawner as a black box: on timeout it SIGKILLs the
// process it started (what a caller of the spawner would do) and nothing else.
// Whether the rest of the tree dies is the spawner's job and the heartbeat
// oracle's question. Everything the tree left behind is removed afterwards by
// Containment (cgroup v2 `cgroup.kill`, or a nonce scan of /proc as fallback).
//
//   Containment box("attempt-17", nonce);
//   LaunchSpec spec{.argv = {...}, .cwd = ws, .env = {...}, .timeout = 5s};
//   LaunchResult r = run_process(spec, &box, &cancel_flag);
//   box.kill_all();  // after judging
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/refusal.h"

namespace breakout {

// Per-attempt process containment: everything started through run_process with
// this box (and all its descendants, whatever they do) can be killed at once.
class Containment {
 public:
  // `label` names the cgroup (unique per attempt); `nonce` is the per-attempt
  // token used by the fallback scan (/proc/*/cmdline and environ).
  Containment(std::string label, std::string nonce);
  ~Containment();  // kill_all() + remove the cgroup; never throws
  Containment(const Containment&) = delete;
  Containment& operator=(const Containment&) = delete;

  // Kills every process in the box (SIGKILL), waits (bounded, 2 s) until they
  // are gone; returns how many processes were found alive.
  int kill_all() noexcept;
  // Number of live processes in the box right now.
  int live_count() const;
  // "cgroup2 <path>" or "nonce-scan" (for the record).
  std::string mechanism() const;
  // Whether a process in the box may leave it on request (Windows: JOB_OBJECT_LIMIT_BREAKAWAY_OK).
  // Never: the box is the harness's kill net (platform/win/job.cc); POSIX has no such request.
  bool allows_breakaway() const { return false; }
  const std::string& nonce() const { return nonce_; }

  // The platform's part of the box, defined by the platform layer only (posix/containment.h:
  // the cgroup and the scan's bookkeeping; win/containment.h: the job object).
  struct Impl;
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  std::string nonce_;
  std::unique_ptr<Impl> impl_;
};

struct LaunchSpec {
  std::vector<std::string> argv;   // argv[0] is looked up on PATH when not absolute
  std::string cwd;                 // empty: inherit
  std::vector<std::string> env;    // "NAME=value", passed exactly (not merged with ours)
  // The PATH argv[0] is looked up on instead of env's: the caller's own, when a per-exec
  // override changed the PATH the spawner gets (the harness picks the spawner binary, not the
  // PATH an attempt hands over; classes/handover/path_hijack.cc). nullopt: env's PATH.
  std::optional<std::string> lookup_path;
  std::optional<std::chrono::milliseconds> timeout;  // nullopt: wait forever
  std::size_t max_capture = 64u << 20;  // bytes kept per stream; hostile-input bound
  // Grandchildren holding the pipes: how long reading goes on after exit (Windows: without data,
  // at most 10x as long while data still comes; platform/win/process.cc).
  std::chrono::milliseconds drain_after_exit{2000};
  // Fds deliberately leaked to the child (class fd-leak): each is opened in the parent (a
  // directory O_RDONLY|O_DIRECTORY, a file or FIFO O_WRONLY|O_APPEND|O_NOFOLLOW, a unix stream
  // socket connected to the listener at `path`) and appears at fd `number` (>= 3, at most
  // kMaxInheritedFds) in the child, not close-on-exec. POSIX only.
  struct InheritedFd {
    enum class Open { kDirectory, kAppend, kUnixConnect };
    std::string path;
    int number = 0;
    Open as = Open::kDirectory;
  };
  std::vector<InheritedFd> inherit_fds;
  // A terminal device (a pty slave) the child gets as stdin AND controlling
  // terminal instead of /dev/null (class tty-inject): the child calls setsid(2)
  // and ioctl(0, TIOCSCTTY) before exec, as a login shell's terminal would be.
  // Empty: stdin is /dev/null and the child keeps our session. POSIX only.
  std::string controlling_tty;
  // Files bound over system paths for this child alone: before exec the child enters a private
  // mount namespace of its own (unshare CLONE_NEWNS, propagation private) and bind-mounts each
  // `source` onto `target` (e.g. the harness's resolv.conf over /etc/resolv.conf, so the spawner
  // and what it starts resolve names through the harness's name server; host/name_server.h).
  // Nothing changes for anyone else, and the namespace ends with the child's tree. POSIX only;
  // needs CAP_SYS_ADMIN.
  struct BindOver {
    std::string source, target;
  };
  std::vector<BindOver> bind_over;
  // The child enters a user namespace of its own, the harness's uid and gid mapped to themselves
  // (one id each, setgroups denied), where /proc/sys/user/max_user_namespaces is 0: whatever it
  // starts can make no further user namespace (ENOSPC), as on a host or in a container with user
  // namespaces off (class fail-open). Before bind_over. POSIX only.
  bool user_namespaces_off = false;
};
inline constexpr std::size_t kMaxBindOver = 2;
inline constexpr std::size_t kMaxInheritedFds = 4;

struct LaunchResult {
  bool started = false;
  std::string start_error;         // why it did not start
  int pid = -1;
  bool timed_out = false;          // we SIGKILLed it because the timeout passed
  bool cancelled = false;          // we SIGKILLed it because *cancel became true
  bool exited = false;             // WIFEXITED
  int exit_code = -1;              // valid when exited
  int term_signal = 0;             // valid when !exited
  std::string out, err;            // captured bytes (up to max_capture each)
  std::size_t out_total = 0, err_total = 0;  // bytes seen, including dropped ones
  bool drain_timed_out = false;    // pipes still open drain_after_exit after exit
  std::chrono::nanoseconds duration{0};      // start to reap
  std::string box_join;            // how the child entered the box: "clone3-into-cgroup",
                                   // "cgroup.procs-write" (POSIX); empty without a cgroup
  // Set by a spawner that refused the command (core/refusal.h): a driver's refusal of the exec
  // or of its boot (started stays false), a template tool's declared refusal exit. Never set
  // by run_process itself.
  std::optional<Refusal> refusal;
};

// Starts spec.argv inside `box` (may be null), drains both pipes concurrently,
// enforces the timeout, and reaps. stdin is /dev/null (or spec.controlling_tty);
// no other fd is inherited (but spec.inherit_fds).
// Never throws for a child that fails to start (started=false, start_error set).
LaunchResult run_process(const LaunchSpec& spec, Containment* box,
                         const std::atomic<bool>* cancel);

}  // namespace breakout
