// The clipboard as a host object (class desktop-reach): a canary on it for the attempt, the user's contents back after.
//
//   ClipboardGuard g(L"BREAKOUT-CANARY-...");  // serialise, save, put the canary (text)
//   ... the probe runs ...; g.text() reads it back (bounded); ~ClipboardGuard restores, releases.
// The clipboard is one per window station (Microsoft Learn, "Window Stations"), shared by every
// process of the desktop and by attempts running in parallel: a guard holds the named mutex
// Local\breakout-clipboard from construction to destruction, so one attempt at a time (also
// across breakout processes) touches it. The mutex is owned by the constructing thread: the
// guard must be destroyed on that thread (run_attempt creates and drops it on one worker).
// Windows only.
#pragma once

#include <windows.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/host/host_objects.h"
#include "harness/host/win/ui_window.h"
#include "harness/platform/win/unique_handle.h"

namespace breakout {

inline constexpr std::chrono::seconds kClipboardLockWait{60};  // one attempt holds it for seconds
inline constexpr int kClipboardOpenTries = 40;                  // x 50 ms: another program may hold it open
inline constexpr std::size_t kClipboardSaveLimit = 64u << 20;   // the user's contents we can put back
inline constexpr std::size_t kClipboardReadLimit = 64u << 10;   // bytes of text read back from the clipboard

class ClipboardGuard {
 public:
  // Takes the lock (throws Error("busy", "...") after kClipboardLockWait), saves what the
  // clipboard holds, then puts `canary` on it as CF_UNICODETEXT. Throws when the clipboard
  // cannot be opened or holds more than kClipboardSaveLimit (then it is left untouched).
  explicit ClipboardGuard(const std::string& canary);
  ~ClipboardGuard();  // restores the saved formats (or empties it), then the members release the lock
  ClipboardGuard(const ClipboardGuard&) = delete;
  ClipboardGuard& operator=(const ClipboardGuard&) = delete;

  // The clipboard's CF_UNICODETEXT as UTF-8 (at most kClipboardReadLimit bytes of it), nullopt
  // when it holds no text; throws when it cannot be opened.
  std::optional<std::string> text() const;
  DWORD sequence_at_canary() const { return sequence_; }
  std::size_t formats_saved() const { return saved_.size(); }

 private:
  void restore() noexcept;
  // Ownership of the mutex, released on every path out (also a throwing constructor).
  struct Held {
    HANDLE h = nullptr;
    ~Held() {
      if (h != nullptr) ::ReleaseMutex(h);
    }
  };
  UniqueHandle mutex_;
  Held held_;
  std::optional<UiWindow> owner_;  // message-only, pumped: WM_DESTROYCLIPBOARD to it never blocks a sender
  std::vector<std::pair<UINT, std::string>> saved_;
  DWORD sequence_ = 0;
};

enum class ClipboardMode { kRead, kWrite };
std::unique_ptr<HostObject> make_clipboard_object(ClipboardMode mode, const HostObjectSetup& setup);

}  // namespace breakout
