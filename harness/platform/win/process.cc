// Windows run_process (CreateProcessW into a job, overlapped pipes, one bounded wait loop) and Containment (a job object).
//
// Same contract as platform/posix/run_process.cc and containment.cc, with these Windows meanings:
//  * Containment is a job object (job.h). run_process assigns the child to the
//    box's job, or without a box to a job of its own that dies with the call
//    (KILL_ON_JOB_CLOSE). Survivors of a run stay in the box's job: live_count()
//    is its active process count, kill_all() TerminateJobObject. Processes outside the
//    job carrying the attempt's nonce in their command line count and are killed too
//    (nonce_scan.h: escapees another process started, as the POSIX nonce scan).
//  * timeout and cancellation kill the whole job (TerminateJobObject), not only
//    the direct child: Windows has no process-group signal, and a grandchild
//    holding our pipe would otherwise keep the run open until the drain bound.
//    A killed child reports exited=false, term_signal=9 (kKilledExitCode seen).
//  * stdin is the NUL device; stdout/stderr are overlapped named pipes drained
//    by one WaitForMultipleObjects loop (pipe_reader.h); every wait is bounded.
//  * LaunchSpec::inherit_fds, controlling_tty and bind_over are POSIX only: start_error.
// Boost.Process is not used here: Boost 1.81's process/v2 Windows headers do not
// compile under mingw-w64 g++ 12, and it offers no handle list or job assignment
// between creation and the first instruction (docs/windows.md).
#include "harness/platform/process.h"

#include <windows.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "harness/core/error.h"
#include "harness/platform/win/containment.h"
#include "harness/platform/win/job.h"
#include "harness/platform/win/launch.h"
#include "harness/platform/win/nonce_scan.h"
#include "harness/platform/win/pipe_reader.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

DWORD millis_until(Clock::time_point t) {
  const auto now = Clock::now();
  if (t <= now) return 0;
  return static_cast<DWORD>(std::min<long long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1, 0x7fffffff));
}

}  // namespace

Containment::Containment(std::string /*label*/, std::string nonce)
    : nonce_(std::move(nonce)), impl_(new Impl{win::JobObject::create()}) {}
Containment::~Containment() {
  kill_all();
  impl_.reset();  // closing the last handle kills anything left (KILL_ON_JOB_CLOSE)
}
int Containment::kill_all() noexcept {
  if (impl_ == nullptr) return 0;
  int seen = impl_->job.terminate_all(2s);
  // The second net, as the POSIX nonce scan: processes outside the job carrying the nonce
  // (a beater that WMI, the Task Scheduler or explorer started: nonce_scan.h). Bounded.
  const auto deadline = Clock::now() + 2s;
  for (;;) {
    const auto pids = win::nonce_scan(nonce_, impl_->job.get(), /*kill_them=*/true);
    seen += static_cast<int>(pids.size());
    if (pids.empty() || Clock::now() >= deadline) break;
    ::Sleep(10);
  }
  return seen;
}
int Containment::live_count() const {
  return impl_->job.active_processes() +
         static_cast<int>(win::nonce_scan(nonce_, impl_->job.get(), /*kill_them=*/false).size());
}
std::string Containment::mechanism() const { return "job object + nonce scan"; }

LaunchResult run_process(const LaunchSpec& spec, Containment* box, const std::atomic<bool>* cancel) {
  LaunchResult r;
  std::optional<win::JobObject> own_job;
  std::unique_ptr<win::PipeReader> out, err;
  win::Child child;
  const auto t0 = Clock::now();
  try {
    if (box == nullptr) own_job.emplace(win::JobObject::create());
    out = std::make_unique<win::PipeReader>(&r.out, &r.out_total, spec.max_capture);
    err = std::make_unique<win::PipeReader>(&r.err, &r.err_total, spec.max_capture);
    SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    UniqueHandle nul(::CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inheritable,
                                   OPEN_EXISTING, 0, nullptr));
    if (!nul) win::throw_last_error("CreateFileW(NUL)");
    child = win::launch_in_job(spec, box != nullptr ? box->impl().job : *own_job, nul.get(),
                               out->child_end(), err->child_end());
  } catch (const Error& e) {
    r.start_error = e.what();
    return r;
  }
  const win::JobObject& job = box != nullptr ? box->impl().job : *own_job;
  out->close_child_end();  // only the child (and what it passes them on to) holds the write ends now
  err->close_child_end();
  r.started = true;
  r.pid = static_cast<int>(child.pid);
  out->start();
  err->start();

  bool exited = false, killed = false;
  std::optional<Clock::time_point> timeout_at, drain_at, drain_cap, killed_at;
  std::size_t drained = 0;  // bytes read when drain_at was last set
  if (spec.timeout) timeout_at = t0 + *spec.timeout;
  auto kill_tree = [&] {
    killed = true;
    killed_at = Clock::now();
    ::TerminateJobObject(job.get(), win::kKilledExitCode);
  };
  if (cancel != nullptr && cancel->load()) {
    r.cancelled = true;
    kill_tree();
  }
  for (;;) {
    if (exited && !out->open() && !err->open()) break;
    HANDLE handles[3];
    win::PipeReader* owner[3] = {nullptr, nullptr, nullptr};
    DWORD n = 0;
    if (!exited) handles[n++] = child.process.get();
    for (win::PipeReader* p : {out.get(), err.get()}) {
      if (p->open()) {
        owner[n] = p;
        handles[n++] = p->event();
      }
    }
    DWORD wait_ms = INFINITE;
    if (!exited && timeout_at && !killed) wait_ms = millis_until(*timeout_at);
    if (exited && drain_at) wait_ms = millis_until(*drain_at);
    if (!exited && killed_at) wait_ms = std::min(wait_ms, millis_until(*killed_at + 5s));
    if (cancel != nullptr) wait_ms = std::min<DWORD>(wait_ms, 10);  // the cancel poll, as on POSIX
    DWORD rc = ::WaitForMultipleObjects(n, handles, FALSE, wait_ms);
    if (rc == WAIT_TIMEOUT && !exited && killed_at && Clock::now() >= *killed_at + 5s) rc = WAIT_FAILED;
    if (rc < WAIT_OBJECT_0 + n) {
      const DWORD i = rc - WAIT_OBJECT_0;
      if (owner[i] != nullptr) {
        owner[i]->on_signalled();
      } else {
        exited = true;
        r.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
        drain_at = Clock::now() + spec.drain_after_exit;
        drain_cap = Clock::now() + 10 * spec.drain_after_exit;
        drained = r.out_total + r.err_total;
      }
    } else if (rc == WAIT_FAILED) {  // cannot wait any more: kill, stop reading, report what we have
      if (!exited) kill_tree();
      ::WaitForSingleObject(child.process.get(), 2000);
      exited = true;
      out->stop();
      err->stop();
    }
    if (!exited && timeout_at && !killed && Clock::now() >= *timeout_at) {
      r.timed_out = true;
      kill_tree();
    }
    if (exited && drain_at && Clock::now() >= *drain_at && (out->open() || err->open())) {
      // Bytes still arriving after exit are the child's own, still buffered (at most our 64 KiB
      // per stream and one write: Wine's server/named_pipe.c holds a writer back past the
      // reader's buffer size), and under load reading them can be slow. So the bound counts
      // time without data; a write end held by a grandchild that sends nothing still ends the run
      // after drain_after_exit, and one that keeps sending at 10 x drain_after_exit. The short
      // contract.output-flood this was first written for (2026-11-30, ~5.85 of 8 MiB) was not
      // late data but the probe dying mid-flood under Wine (nonce_scan.cc, docs/windows.md).
      const std::size_t now_read = r.out_total + r.err_total;
      if (now_read != drained && Clock::now() < *drain_cap) {
        drained = now_read;
        drain_at = std::min(Clock::now() + spec.drain_after_exit, *drain_cap);
      } else {
        r.drain_timed_out = true;  // something still holds a write end: stop reading
        out->stop();
        err->stop();
      }
    }
    if (cancel != nullptr && cancel->load() && !r.cancelled && !r.timed_out) {
      r.cancelled = !exited;
      if (!exited) kill_tree();
      else {
        out->stop();
        err->stop();
      }
    }
  }
  if (r.duration.count() == 0) r.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
  DWORD code = 0;
  if (::GetExitCodeProcess(child.process.get(), &code) && code != STILL_ACTIVE) {
    if (killed && code == win::kKilledExitCode) {
      r.term_signal = 9;
    } else {
      r.exited = true;
      r.exit_code = static_cast<int>(code);
    }
  }
  return r;
}

}  // namespace breakout
