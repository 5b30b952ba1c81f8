// A hidden window on its own pumping thread (RAII): the harness's end of the desktop-reach class.
//
//   UiWindow w(L"breakout-1a2b3c4d", UiWindow::kTopLevel, [&](std::string_view data) { ... });
//   FindWindowW(L"breakout-1a2b3c4d", ...) finds it; WM_COPYDATA payloads reach the callback
//   on the window's thread; the destructor stops the pump, destroys the window, joins.
// Windows only.
#pragma once

#include <windows.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "harness/platform/win/unique_handle.h"

namespace breakout {

// The bytes of one WM_COPYDATA a caller looks at: cbData is the sender's claim, so at most this many.
inline constexpr std::size_t kCopyDataLimit = 4096;
// Dispatches per wake-up before the stop event is looked at again: a flood cannot starve the destructor.
inline constexpr int kMessagesPerWake = 64;

class UiWindow {
 public:
  enum Kind { kTopLevel, kMessageOnly };
  // Called on the window's thread with at most kCopyDataLimit bytes and the size the sender claimed.
  using OnCopyData = std::function<void(std::string_view data, std::size_t claimed)>;

  // Registers a window class named `name` and creates a hidden window with that class and
  // title; throws Error("win32", "...") when the system makes none (no display driver).
  UiWindow(const std::wstring& name, Kind kind, OnCopyData on_copy = {});
  ~UiWindow();
  UiWindow(const UiWindow&) = delete;
  UiWindow& operator=(const UiWindow&) = delete;
  HWND hwnd() const { return hwnd_; }

 private:
  void pump(Kind kind);
  static LRESULT CALLBACK proc(HWND h, UINT msg, WPARAM w, LPARAM l);

  std::wstring name_;
  OnCopyData on_copy_;
  UniqueHandle ready_, stop_;
  HWND hwnd_ = nullptr;
  std::string error_;  // set by the thread when it could not make the window
  std::thread thread_;
};

// Whether a hidden top-level window can be made in this session (asked once): the reason when
// not. Wine without a display driver makes none (CreateWindowExW returns NULL, error 0);
// message-only windows and the clipboard still work there.
std::optional<std::string> top_level_window_unavailable();

}  // namespace breakout
