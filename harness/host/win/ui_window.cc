// A hidden window pumped by a thread of its own: class registration, creation, a bounded pump, destruction.
#include "harness/host/win/ui_window.h"

#include <algorithm>

#include "harness/core/error.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {
constexpr DWORD kReadyWaitMs = 10000;  // creating a window takes milliseconds; a stuck driver must not hold the run
}

UiWindow::UiWindow(const std::wstring& name, Kind kind, OnCopyData on_copy)
    : name_(name), on_copy_(std::move(on_copy)), ready_(::CreateEventW(nullptr, TRUE, FALSE, nullptr)),
      stop_(::CreateEventW(nullptr, TRUE, FALSE, nullptr)) {
  if (!ready_ || !stop_) win::throw_last_error("CreateEventW");
  thread_ = std::thread([this, kind] { pump(kind); });
  const DWORD w = ::WaitForSingleObject(ready_.get(), kReadyWaitMs);
  if (w == WAIT_OBJECT_0 && hwnd_ != nullptr) return;
  ::SetEvent(stop_.get());
  thread_.join();
  throw Error(w == WAIT_OBJECT_0 ? error_ : "[win32] window " + win::narrow(name_) + " not made within 10 s");
}

UiWindow::~UiWindow() {
  ::SetEvent(stop_.get());
  if (thread_.joinable()) thread_.join();
}

// Everything window-related happens on this thread: a window belongs to the thread that made it
// and only that thread receives its messages (Microsoft Learn, "About Messages and Message Queues").
void UiWindow::pump(Kind kind) {
  const HINSTANCE inst = ::GetModuleHandleW(nullptr);
  WNDCLASSEXW wc{};
  wc.cbSize = sizeof wc;
  wc.lpfnWndProc = &UiWindow::proc;
  wc.hInstance = inst;
  wc.lpszClassName = name_.c_str();
  if (::RegisterClassExW(&wc) == 0) {
    error_ = "[win32] " + win::last_error_text("RegisterClassExW " + win::narrow(name_));
    ::SetEvent(ready_.get());
    return;
  }
  // Never WS_VISIBLE: nothing may pop up on the user's desktop. FindWindowW finds hidden
  // top-level windows too; message-only windows (HWND_MESSAGE) it does not.
  hwnd_ = ::CreateWindowExW(0, name_.c_str(), name_.c_str(), WS_OVERLAPPED, 0, 0, 0, 0,
                            kind == kMessageOnly ? HWND_MESSAGE : nullptr, nullptr, inst, this);
  if (hwnd_ == nullptr) {
    const DWORD e = ::GetLastError();
    error_ = "[win32] " + win::last_error_text("CreateWindowExW " + win::narrow(name_), e) +
             (e == 0 ? ": no window was made (under Wine: no display driver; ci/wine-prefix.sh sets Graphics=null)" : "");
    ::UnregisterClassW(name_.c_str(), inst);
    ::SetEvent(ready_.get());
    return;
  }
  ::SetEvent(ready_.get());
  const HANDLE stop = stop_.get();
  // MsgWaitForMultipleObjects wakes for posted and sent messages (QS_ALLINPUT includes
  // QS_SENDMESSAGE); PeekMessageW delivers the sent ones to proc(). Ends when stop is set.
  while (::MsgWaitForMultipleObjects(1, &stop, FALSE, INFINITE, QS_ALLINPUT) != WAIT_OBJECT_0) {
    MSG m;
    for (int i = 0; i < kMessagesPerWake && ::PeekMessageW(&m, nullptr, 0, 0, PM_REMOVE); ++i) ::DispatchMessageW(&m);
  }
  ::DestroyWindow(hwnd_);
  ::UnregisterClassW(name_.c_str(), inst);
}

LRESULT CALLBACK UiWindow::proc(HWND h, UINT msg, WPARAM w, LPARAM l) {
  if (msg == WM_NCCREATE)
    ::SetWindowLongPtrW(h, GWLP_USERDATA,
                        reinterpret_cast<LONG_PTR>(reinterpret_cast<CREATESTRUCTW*>(l)->lpCreateParams));
  auto* self = reinterpret_cast<UiWindow*>(::GetWindowLongPtrW(h, GWLP_USERDATA));
  if (msg == WM_COPYDATA && self != nullptr) {
    // The system copied cbData bytes into our address space for the duration of this call
    // (Microsoft Learn, "WM_COPYDATA message"); we look at no more than kCopyDataLimit of them.
    const auto* cds = reinterpret_cast<const COPYDATASTRUCT*>(l);
    if (cds == nullptr || cds->lpData == nullptr) return FALSE;
    const std::size_t n = std::min<std::size_t>(cds->cbData, kCopyDataLimit);
    if (self->on_copy_) self->on_copy_(std::string_view(static_cast<const char*>(cds->lpData), n), cds->cbData);
    return TRUE;
  }
  // A close from outside must not take the sensor down before the harness has looked: only the
  // destructor destroys the window.
  if (msg == WM_CLOSE) return 0;
  return ::DefWindowProcW(h, msg, w, l);
}

std::optional<std::string> top_level_window_unavailable() {
  static const std::optional<std::string> why = []() -> std::optional<std::string> {
    try {
      UiWindow probe(L"breakout-window-check-" + std::to_wstring(::GetCurrentProcessId()), UiWindow::kTopLevel);
      return std::nullopt;
    } catch (const std::exception& e) {
      return std::string("no top-level window can be made in this session: ") + e.what();
    }
  }();
  return why;
}

}  // namespace breakout
