// The clipboard canary: a cross-process lock, the user's formats saved and put back, a bounded text read.
#include "harness/host/win/clipboard.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

// The clipboard opened by this thread for the scope (OpenClipboard ... CloseClipboard).
class OpenedClipboard {
 public:
  explicit OpenedClipboard(HWND owner) {
    for (int i = 0; i < kClipboardOpenTries; ++i) {
      if (::OpenClipboard(owner)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    win::throw_last_error("OpenClipboard (held open by another program for 2 s)");
  }
  ~OpenedClipboard() { ::CloseClipboard(); }
  OpenedClipboard(const OpenedClipboard&) = delete;
  OpenedClipboard& operator=(const OpenedClipboard&) = delete;
};

// Formats whose data is a GDI object or owner-drawn, not an HGLOBAL we could copy
// (Microsoft Learn, "Standard Clipboard Formats"). A bitmap usually comes back anyway:
// CF_BITMAP is synthesised from CF_DIB, which is saved.
bool copyable(UINT f) {
  switch (f) {
    case CF_BITMAP:
    case CF_METAFILEPICT:
    case CF_PALETTE:
    case CF_ENHMETAFILE:
    case CF_OWNERDISPLAY:
    case CF_DSPBITMAP:
    case CF_DSPMETAFILEPICT:
    case CF_DSPENHMETAFILE: return false;
    default: return f < CF_GDIOBJFIRST || f > CF_GDIOBJLAST;
  }
}

// Puts `bytes` on the open clipboard as format `f`; the system owns the memory once it succeeds.
bool put(UINT f, const void* bytes, std::size_t n) {
  HGLOBAL g = ::GlobalAlloc(GMEM_MOVEABLE, n == 0 ? 1 : n);
  if (g == nullptr) return false;
  if (void* p = ::GlobalLock(g)) {
    if (n > 0) std::memcpy(p, bytes, n);
    ::GlobalUnlock(g);
    if (::SetClipboardData(f, g) != nullptr) return true;
  }
  ::GlobalFree(g);
  return false;
}

}  // namespace

ClipboardGuard::ClipboardGuard(const std::string& canary)
    : mutex_(::CreateMutexW(nullptr, FALSE, L"Local\\breakout-clipboard")) {
  if (!mutex_) win::throw_last_error("CreateMutexW Local\\breakout-clipboard");
  const DWORD w = ::WaitForSingleObject(
      mutex_.get(), static_cast<DWORD>(std::chrono::milliseconds(kClipboardLockWait).count()));
  // WAIT_ABANDONED: a breakout that died holding it; ours now (its canary is replaced below).
  if (w != WAIT_OBJECT_0 && w != WAIT_ABANDONED)
    throw Error("busy", "the clipboard lock Local\\breakout-clipboard was not free within 60 s");
  held_.h = mutex_.get();
  static std::atomic<unsigned> serial{0};  // a class name per owner window of this process
  owner_.emplace(L"breakout-clipboard-owner-" + std::to_wstring(::GetCurrentProcessId()) + L"-" +
                     std::to_wstring(++serial),
                 UiWindow::kMessageOnly);
  {
    OpenedClipboard open(owner_->hwnd());
    std::size_t total = 0;
    for (UINT f = ::EnumClipboardFormats(0); f != 0; f = ::EnumClipboardFormats(f)) {
      if (!copyable(f)) continue;
      HANDLE d = ::GetClipboardData(f);  // renders a delayed format now
      if (d == nullptr) continue;
      const SIZE_T n = ::GlobalSize(d);
      const void* p = ::GlobalLock(d);
      if (p == nullptr) continue;
      total += n;
      if (total <= kClipboardSaveLimit) saved_.emplace_back(f, std::string(static_cast<const char*>(p), n));
      ::GlobalUnlock(d);
      if (total > kClipboardSaveLimit)
        throw Error("clipboard", "it holds more than 64 MiB: left untouched, the attempt not run");
    }
  }
  try {
    OpenedClipboard open(owner_->hwnd());
    if (!::EmptyClipboard()) win::throw_last_error("EmptyClipboard");
    const std::wstring w = win::wide(canary);
    if (!put(CF_UNICODETEXT, w.c_str(), (w.size() + 1) * sizeof(wchar_t))) win::throw_last_error("SetClipboardData");
  } catch (...) {
    restore();
    throw;
  }
  sequence_ = ::GetClipboardSequenceNumber();
}

ClipboardGuard::~ClipboardGuard() { restore(); }

// Best effort and bounded (OpenedClipboard gives up after 2 s): the user's formats back, or an
// empty clipboard when there were none; never the canary or the probe's nonce left behind.
void ClipboardGuard::restore() noexcept {
  try {
    OpenedClipboard open(owner_->hwnd());
    ::EmptyClipboard();
    for (const auto& [f, bytes] : saved_) put(f, bytes.data(), bytes.size());
  } catch (...) {
  }
}

std::optional<std::string> ClipboardGuard::text() const {
  OpenedClipboard open(owner_->hwnd());
  HANDLE d = ::GetClipboardData(CF_UNICODETEXT);
  if (d == nullptr) return std::nullopt;
  const auto* p = static_cast<const wchar_t*>(::GlobalLock(d));
  if (p == nullptr) return std::nullopt;
  // The probe wrote it: as many characters as fit the bound, up to the first NUL.
  const std::size_t cap = std::min<std::size_t>(::GlobalSize(d) / sizeof(wchar_t), kClipboardReadLimit / sizeof(wchar_t));
  std::size_t n = 0;
  while (n < cap && p[n] != L'\0') ++n;
  std::string out = win::narrow(std::wstring_view(p, n));
  ::GlobalUnlock(d);
  return out;
}

namespace {

class HostClipboard : public HostObject {
 public:
  HostClipboard(ClipboardMode mode, const HostObjectSetup& s)
      : mode_(mode), nonce_(s.nonce), canary_(canary_token()), guard_(canary_) {}
  std::string spec() const override { return mode_ == ClipboardMode::kRead ? "clipboard:read" : "clipboard:write"; }
  HostEvidence inspect() override {
    const std::optional<std::string> now = guard_.text();
    HostEvidence e;
    e.evidence["clipboard_sequence_changed"] = ::GetClipboardSequenceNumber() != guard_.sequence_at_canary();
    e.evidence["clipboard_text"] = now ? printable_excerpt(*now, 256) : "(no text)";
    e.evidence["clipboard_formats_saved"] = guard_.formats_saved();
    if (mode_ == ClipboardMode::kRead) {
      e.token = canary_;  // decides: seen in the output or a file of the tree
      e.summary = "the clipboard held a canary during the attempt";
    } else {
      e.changed = now && now->find(nonce_) != std::string::npos;
      e.summary = e.changed ? "the clipboard holds the nonce: the probe wrote the host's clipboard"
                  : now && *now == canary_ ? "the clipboard still holds the harness's canary"
                                           : "the clipboard changed, but not to the nonce (another program?)";
    }
    return e;
  }

 private:
  ClipboardMode mode_;
  std::string nonce_, canary_;
  ClipboardGuard guard_;
};

}  // namespace

std::unique_ptr<HostObject> make_clipboard_object(ClipboardMode mode, const HostObjectSetup& s) {
  return std::make_unique<HostClipboard>(mode, s);
}

}  // namespace breakout
