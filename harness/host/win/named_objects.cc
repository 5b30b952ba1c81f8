// Named-object host objects: an overlapped named pipe server read with bounds, and a named event.
#include "harness/host/win/named_objects.h"

#include <windows.h>

#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

using Clock = std::chrono::steady_clock;

DWORD ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<DWORD>(left) : 0;
}

class HostPipe : public HostObject {
 public:
  explicit HostPipe(const HostObjectSetup& s) : nonce_(s.nonce), name_("\\\\.\\pipe\\breakout-" + s.nonce.substr(0, 8)) {
    // FIRST_PIPE_INSTANCE: fail rather than share a name someone created first (a squatter
    // would otherwise be the server); REJECT_REMOTE_CLIENTS: local clients only.
    // Microsoft Learn, "CreateNamedPipeW".
    pipe_.reset(::CreateNamedPipeW(win::wide(name_).c_str(),
                                   PIPE_ACCESS_INBOUND | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
                                   PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, 0,
                                   static_cast<DWORD>(kPipeReadLimit), 0, nullptr));
    if (!pipe_) win::throw_last_error("CreateNamedPipeW " + name_);
    event_.reset(::CreateEventW(nullptr, TRUE, FALSE, nullptr));
    if (!event_) win::throw_last_error("CreateEventW");
    ov_.hEvent = event_.get();
    if (::ConnectNamedPipe(pipe_.get(), &ov_)) {
      connected_ = true;
    } else if (const DWORD e = ::GetLastError(); e == ERROR_PIPE_CONNECTED) {
      connected_ = true;
    } else if (e == ERROR_IO_PENDING) {
      pending_ = true;
    } else {
      win::throw_last_error("ConnectNamedPipe " + name_, e);
    }
  }
  ~HostPipe() override { cancel(); }
  std::string spec() const override { return "pipe:" + name_; }
  HostEvidence inspect() override {
    const auto deadline = Clock::now() + kPipeReadWait;
    if (pending_ && ::WaitForSingleObject(event_.get(), ms_left(deadline)) == WAIT_OBJECT_0) {
      DWORD n = 0;
      pending_ = false;
      connected_ = ::GetOverlappedResult(pipe_.get(), &ov_, &n, FALSE) || ::GetLastError() == ERROR_PIPE_CONNECTED;
    }
    std::string got;
    bool broken = false;
    while (connected_ && !broken && got.size() < kPipeReadLimit && got.find(nonce_) == std::string::npos) {
      char buf[kPipeReadLimit];
      DWORD n = 0;
      ::ResetEvent(event_.get());
      const DWORD want = static_cast<DWORD>(kPipeReadLimit - got.size());
      if (!::ReadFile(pipe_.get(), buf, want, &n, &ov_)) {
        const DWORD e = ::GetLastError();
        if (e != ERROR_IO_PENDING) break;  // ERROR_BROKEN_PIPE: the client wrote and closed
        pending_ = true;
        if (::WaitForSingleObject(event_.get(), ms_left(deadline)) != WAIT_OBJECT_0) break;  // cancel() reaps it
        pending_ = false;
        if (!::GetOverlappedResult(pipe_.get(), &ov_, &n, FALSE)) broken = true;
      }
      got.append(buf, n);
      if (n == 0 && ms_left(deadline) == 0) break;
    }
    cancel();
    HostEvidence e;
    e.changed = got.find(nonce_) != std::string::npos;
    e.evidence["pipe"] = name_;
    e.evidence["pipe_client_connected"] = connected_;
    e.evidence["pipe_bytes_received"] = got.size();
    e.evidence["pipe_received"] = printable_excerpt(got, 256);
    e.summary = e.changed      ? "the harness's pipe " + name_ + " received the nonce"
                : connected_ ? "a client connected to " + name_ + " but sent no nonce within the bounds"
                             : "no client connected to " + name_;
    return e;
  }

 private:
  // An overlapped operation must be over before the OVERLAPPED and its buffer go (CancelIoEx, then wait).
  void cancel() {
    if (pending_ && pipe_) {
      ::CancelIoEx(pipe_.get(), &ov_);
      DWORD n = 0;
      ::GetOverlappedResult(pipe_.get(), &ov_, &n, TRUE);
      pending_ = false;
    }
  }
  std::string nonce_, name_;
  UniqueHandle pipe_, event_;
  OVERLAPPED ov_{};
  bool connected_ = false, pending_ = false;
};

class HostEvent : public HostObject {
 public:
  explicit HostEvent(const HostObjectSetup& s) : name_("Local\\breakout-" + s.nonce.substr(0, 8)) {
    event_.reset(::CreateEventW(nullptr, TRUE, FALSE, win::wide(name_).c_str()));
    if (!event_) win::throw_last_error("CreateEventW " + name_);
    // Someone else's object under our name would decide the verdict: refuse it.
    if (::GetLastError() == ERROR_ALREADY_EXISTS) throw Error("exists", "event " + name_ + " exists already");
  }
  std::string spec() const override { return "event:" + name_; }
  HostEvidence inspect() override {
    HostEvidence e;
    e.changed = ::WaitForSingleObject(event_.get(), 0) == WAIT_OBJECT_0;
    e.evidence["event"] = name_;
    e.evidence["event_signalled"] = e.changed;
    e.summary = "the harness's event " + name_ + (e.changed ? " was signalled" : " stayed unsignalled");
    return e;
  }

 private:
  std::string name_;
  UniqueHandle event_;
};

}  // namespace

std::unique_ptr<HostObject> make_named_object(const std::string& name, const HostObjectSetup& s) {
  if (name == "pipe") return std::make_unique<HostPipe>(s);
  if (name == "event") return std::make_unique<HostEvent>(s);
  throw Error("unknown named object " + name);
}

}  // namespace breakout
