// Overlapped named-pipe reader for a child's stdout/stderr (see pipe_reader.h).
#include "harness/platform/win/pipe_reader.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "harness/platform/win/win_util.h"

namespace breakout::win {

namespace {

std::wstring unique_pipe_name() {
  static std::atomic<unsigned long> counter{0};
  return L"\\\\.\\pipe\\breakout-" + std::to_wstring(::GetCurrentProcessId()) + L"-" +
         std::to_wstring(counter.fetch_add(1)) + L"-" + std::to_wstring(::GetTickCount64());
}

}  // namespace

PipePair create_overlapped_pipe(bool inbound) {
  const std::wstring name = unique_pipe_name();
  PipePair p;
  // Microsoft Learn, "CreateNamedPipeW": FILE_FLAG_FIRST_PIPE_INSTANCE fails if
  // the name is taken (nobody can pre-create our pipe); PIPE_REJECT_REMOTE_CLIENTS.
  p.server.reset(::CreateNamedPipeW(
      name.c_str(), (inbound ? PIPE_ACCESS_INBOUND : PIPE_ACCESS_OUTBOUND) | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
      PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, inbound ? 0 : 64 * 1024,
      inbound ? 64 * 1024 : 0, 0, nullptr));
  if (!p.server) throw_last_error("CreateNamedPipeW");
  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  p.client.reset(::CreateFileW(name.c_str(), inbound ? GENERIC_WRITE : GENERIC_READ, 0, &inheritable, OPEN_EXISTING,
                               FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!p.client) throw_last_error("CreateFileW (pipe client)");
  return p;
}

PipeReader::PipeReader(std::string* keep, std::size_t* total, std::size_t max_capture, Keep mode)
    : keep_(keep), total_(total), max_capture_(max_capture), mode_(mode) {
  PipePair p = create_overlapped_pipe(/*inbound=*/true);
  server_ = std::move(p.server);
  client_ = std::move(p.client);
  event_.reset(::CreateEventW(nullptr, TRUE, FALSE, nullptr));
  if (!event_) throw_last_error("CreateEventW");
}

PipeReader::~PipeReader() { stop(); }

void PipeReader::take(DWORD n) {
  *total_ += n;
  if (mode_ == Keep::kTail) {
    keep_->append(buf_.data(), n);
    if (keep_->size() > max_capture_) keep_->erase(0, keep_->size() - max_capture_);
    return;
  }
  const std::size_t room = max_capture_ > keep_->size() ? max_capture_ - keep_->size() : 0;
  keep_->append(buf_.data(), std::min<std::size_t>(n, room));
}

void PipeReader::start() {
  while (open_ && !pending_) {
    ov_ = OVERLAPPED{};
    ov_.hEvent = event_.get();  // ReadFile resets it when the read begins
    DWORD n = 0;
    if (::ReadFile(server_.get(), buf_.data(), static_cast<DWORD>(buf_.size()), &n, &ov_)) {
      take(n);  // completed at once; the event is set too, harmlessly
      continue;
    }
    if (::GetLastError() == ERROR_IO_PENDING) {
      pending_ = true;
      return;
    }
    open_ = false;  // ERROR_BROKEN_PIPE: every writer closed (EOF); anything else ends the stream too
  }
}

void PipeReader::on_signalled() {
  if (!pending_) {
    ::ResetEvent(event_.get());
    return;
  }
  DWORD n = 0;
  const BOOL ok = ::GetOverlappedResult(server_.get(), &ov_, &n, FALSE);
  if (!ok && ::GetLastError() == ERROR_IO_INCOMPLETE) return;
  pending_ = false;
  if (ok) {
    take(n);
  } else {
    open_ = false;
  }
  start();
}

std::size_t PipeReader::unread() const {
  if (!open_) return 0;
  DWORD in_pipe = 0, done = 0;
  if (!::PeekNamedPipe(server_.get(), nullptr, 0, nullptr, &in_pipe, nullptr)) in_pipe = 0;
  // GetOverlappedResult with bWait FALSE only reads the status; ERROR_IO_INCOMPLETE while pending.
  if (pending_ && !::GetOverlappedResult(server_.get(), const_cast<OVERLAPPED*>(&ov_), &done, FALSE)) done = 0;
  return static_cast<std::size_t>(in_pipe) + (pending_ ? done : 0);
}

void PipeReader::stop() {
  if (pending_) {
    // Microsoft Learn, "CancelIoEx": the operation still completes (aborted);
    // wait for it so the kernel no longer writes into buf_/ov_.
    DWORD n = 0;
    if (::CancelIoEx(server_.get(), &ov_) || ::GetLastError() != ERROR_NOT_FOUND)
      ::GetOverlappedResult(server_.get(), &ov_, &n, TRUE);
    pending_ = false;
  }
  open_ = false;
}

}  // namespace breakout::win
