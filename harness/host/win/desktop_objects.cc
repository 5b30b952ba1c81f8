// Desktop host objects: the harness's window (WM_COPYDATA received, bounded) and the clipboard canary objects.
#include "harness/host/win/desktop_objects.h"

#include <windows.h>

#include <condition_variable>
#include <mutex>

#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/host/win/clipboard.h"
#include "harness/host/win/ui_window.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

class HostWindow : public HostObject {
 public:
  explicit HostWindow(const HostObjectSetup& s) : nonce_(s.nonce), name_("breakout-" + s.nonce.substr(0, 8)) {
    const std::wstring w = win::wide(name_);
    // Someone else's window under our name would receive the probe's message: refuse it.
    if (::FindWindowW(w.c_str(), w.c_str()) != nullptr) throw Error("exists", "window " + name_ + " exists already");
    window_.emplace(w, UiWindow::kTopLevel, [this](std::string_view data, std::size_t claimed) { received(data, claimed); });
  }
  std::string spec() const override { return "window:" + name_; }
  HostEvidence inspect() override {
    std::unique_lock lock(mutex_);
    (void)seen_.wait_for(lock, kWindowWait, [this] { return nonce_seen_; });
    HostEvidence e;
    e.changed = nonce_seen_;
    e.evidence["window"] = name_;
    e.evidence["window_copydata_messages"] = messages_;
    e.evidence["window_copydata_bytes"] = bytes_;
    e.evidence["window_received"] = printable_excerpt(kept_, 256);
    e.summary = nonce_seen_      ? "the harness's window " + name_ + " received the nonce (WM_COPYDATA)"
                : messages_ > 0 ? "the harness's window " + name_ + " got " + std::to_string(messages_) +
                                      " WM_COPYDATA message(s) without the nonce"
                                : "no WM_COPYDATA reached the harness's window " + name_;
    return e;
  }

 private:
  // On the window's thread. Each payload is searched on its own (a flood before the nonce cannot
  // push it out); what is kept as evidence stops at kWindowKeep.
  void received(std::string_view data, std::size_t claimed) {
    std::lock_guard lock(mutex_);
    ++messages_;
    bytes_ += claimed;
    if (kept_.size() < kWindowKeep) kept_.append(data.substr(0, kWindowKeep - kept_.size()));
    if (data.find(nonce_) != std::string_view::npos) {
      nonce_seen_ = true;
      seen_.notify_all();
    }
  }

  std::string nonce_, name_;
  std::mutex mutex_;
  std::condition_variable seen_;
  std::string kept_;
  unsigned long long messages_ = 0, bytes_ = 0;
  bool nonce_seen_ = false;
  std::optional<UiWindow> window_;  // last: destroyed (thread joined) before the state it writes into
};

}  // namespace

std::unique_ptr<HostObject> make_desktop_object(const std::string& name, const HostObjectSetup& s) {
  if (name == "window") return std::make_unique<HostWindow>(s);
  if (name == "clipboard-read") return make_clipboard_object(ClipboardMode::kRead, s);
  if (name == "clipboard-write") return make_clipboard_object(ClipboardMode::kWrite, s);
  throw Error("unknown desktop object " + name);
}

std::optional<std::string> desktop_object_unavailable(const std::string& name) {
  if (name == "window" || name == "own-window") return top_level_window_unavailable();
  return std::nullopt;  // the clipboard needs no window of ours on the desktop: a message-only owner does
}

}  // namespace breakout
