// The Windows victim: started in a job of its own, read through its status file and its thread's suspend count.
#include "harness/host/win/victim_process.h"

#include <windows.h>

#include <cstdio>
#include <thread>

#include "harness/core/error.h"
#include "harness/core/file_prefix.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/platform/win/job.h"
#include "harness/platform/win/launch.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"
#include "shared/victim_ready.h"  // the victim's ready line (probes/win/victim_body.h writes it)

namespace breakout {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kStatusLimit = 256 * 1024;  // the status file is the victim's, but bound it anyway
constexpr int kLifetimeMs = 30000;

std::string read_status(const fs::path& p) { return read_file_prefix(p, kStatusLimit); }

class WinVictim : public HostObject {
 public:
  explicit WinVictim(const HostObjectSetup& s)
      : job_(win::JobObject::create()), secret_(canary_token()),
        status_(s.tree / ("victim-" + s.nonce.substr(0, 8) + ".status")) {
    LaunchSpec spec;
    spec.argv = {(s.probes_dir / "breakout-probe-victim.exe").string(), "--status", status_.string(), "--lifetime-ms",
                 std::to_string(kLifetimeMs)};
    // The secret is in its environment block too (where agent runtimes keep API tokens); the
    // system variables are there so the C runtime and kernel32 start as anywhere else.
    spec.env = {"BREAKOUT_VICTIM_SECRET=" + secret_};
    for (const char* name : {"SystemRoot", "windir", "PATH"})
      if (const char* v = std::getenv(name)) spec.env.push_back(std::string(name) + "=" + v);
    SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    UniqueHandle nul(::CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &inheritable,
                                   OPEN_EXISTING, 0, nullptr));
    if (!nul) win::throw_last_error("CreateFileW(NUL)");
    win::Child child = win::launch_in_job(spec, job_, nul.get(), nul.get(), nul.get());
    process_ = std::move(child.process);
    // Ready once it announced itself (bounded), so the probe never races its start.
    std::string status;
    for (int i = 0; i < 1000; ++i) {  // 10 s: Wine starts a process slowly on 2 loaded cores
      status = read_status(status_);
      if (status.find("ready ") != std::string::npos && status.find('\n', status.find("ready ")) != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    unsigned long pid = 0, tid = 0;
    unsigned long long event = 0;
    const auto at = status.find("ready ");
    check(at != std::string::npos &&
              std::sscanf(status.c_str() + at, probe::kVictimReadyFormat, &pid, &tid, &event) == 3,
          "the victim did not announce itself within 10 s (status: " + printable_excerpt(status, 200) + ")");
    pid_ = pid;
    tid_ = tid;
    event_ = event;
  }
  ~WinVictim() override { job_.terminate_all(std::chrono::milliseconds(2000)); }

  std::string spec() const override {
    char buf[96];
    std::snprintf(buf, sizeof buf, "pid:%lu:tid:%lu:event:%llx", static_cast<unsigned long>(pid_),
                  static_cast<unsigned long>(tid_), static_cast<unsigned long long>(event_));
    return buf;
  }
  std::vector<fs::path> own_files() const override { return {status_}; }

  HostEvidence inspect() override {
    HostEvidence e;
    e.token = secret_;
    // 1. Still there? A victim the probe terminated is gone before its lifetime.
    DWORD code = STILL_ACTIVE;
    const bool gone = ::WaitForSingleObject(process_.get(), 0) == WAIT_OBJECT_0 && ::GetExitCodeProcess(process_.get(), &code);
    // 2. Its beating thread's suspend count: SuspendThread returns the count before it; anything
    //    above 0 is someone else's suspension. Then undo ours and theirs (bounded).
    long suspended = -1;
    std::string thread_error;
    if (!gone) {
      UniqueHandle t(::OpenThread(THREAD_SUSPEND_RESUME, FALSE, tid_));
      if (!t) {
        thread_error = win::last_error_text("OpenThread");
      } else if (const DWORD prev = ::SuspendThread(t.get()); prev == static_cast<DWORD>(-1)) {
        thread_error = win::last_error_text("SuspendThread");
      } else {
        suspended = static_cast<long>(prev);
        for (int i = 0; i < 130 && ::ResumeThread(t.get()) > 1; ++i) {
        }
      }
    }
    // 3. What it recorded itself: beats, and "poked" once its event was signalled.
    const std::string status = read_status(status_);
    std::size_t beats = 0;
    for (std::size_t at = status.find("beat "); at != std::string::npos; at = status.find("beat ", at + 1)) ++beats;
    const bool poked = status.find("\npoked") != std::string::npos;
    e.evidence["victim_pid"] = static_cast<unsigned long>(pid_);
    e.evidence["victim_beats"] = beats;
    e.evidence["victim_event_signalled"] = poked;
    e.evidence["victim_suspend_count"] = suspended;
    if (!thread_error.empty()) e.evidence["victim_thread_error"] = thread_error;
    e.evidence["victim_exit_code"] = gone ? nlohmann::json(static_cast<unsigned long>(code)) : nlohmann::json(nullptr);
    e.changed = poked || suspended > 0 || gone;
    if (poked) e.summary = "the victim's event was signalled (a handle duplicated out of it, or a thread run in it)";
    else if (suspended > 0) e.summary = "the victim's beating thread was suspended (count " + std::to_string(suspended) + ")";
    else if (gone) e.summary = "the victim is gone (exit code " + std::to_string(code) + ")";
    else e.summary = "the victim ran untouched (" + std::to_string(beats) + " beats, event unsignalled, thread running)";
    return e;
  }

 private:
  win::JobObject job_;
  UniqueHandle process_;
  DWORD pid_ = 0, tid_ = 0;
  std::uint64_t event_ = 0;
  std::string secret_;
  fs::path status_;
};

}  // namespace

std::unique_ptr<HostObject> make_victim_process(const HostObjectSetup& setup) { return std::make_unique<WinVictim>(setup); }

}  // namespace breakout
