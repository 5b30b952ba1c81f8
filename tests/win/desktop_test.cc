// Desktop host objects (class desktop-reach): the window receives the nonce within its bounds; the clipboard canary is set, read back, restored, serialised.
#include <gtest/gtest.h>
#include <windows.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "harness/core/nonce.h"
#include "harness/host/host_objects.h"
#include "tests/win/object_setup.h"
#include "harness/host/win/clipboard.h"
#include "harness/host/win/desktop_objects.h"
#include "harness/host/win/ui_window.h"
#include "harness/platform/win/win_util.h"

using namespace breakout;
using Clock = std::chrono::steady_clock;

namespace {

using win_test::setup_with;


// What the probe does (probes/win/win-desktop.cc): find the window by name, WM_COPYDATA, bounded.
bool send_to(const std::string& name, const std::string& data) {
  const std::wstring w = win::wide(name);
  HWND h = ::FindWindowW(w.c_str(), w.c_str());
  if (h == nullptr) return false;
  COPYDATASTRUCT cds{0, static_cast<DWORD>(data.size()), const_cast<char*>(data.data())};
  DWORD_PTR answer = 0;
  return ::SendMessageTimeoutW(h, WM_COPYDATA, 0, reinterpret_cast<LPARAM>(&cds), SMTO_ABORTIFHUNG, 2000, &answer) != 0 &&
         answer == TRUE;
}

std::string window_name(const HostObject& obj) { return obj.spec().substr(std::string("window:").size()); }

// The clipboard as another program (the user, or the probe) sets and reads it.
bool set_clipboard(const std::wstring& text) {
  UiWindow owner(L"breakout-test-owner", UiWindow::kMessageOnly);
  if (!::OpenClipboard(owner.hwnd())) return false;
  bool ok = ::EmptyClipboard() != 0;
  if (ok && !text.empty()) {
    HGLOBAL g = ::GlobalAlloc(GMEM_MOVEABLE, (text.size() + 1) * sizeof(wchar_t));
    std::memcpy(::GlobalLock(g), text.c_str(), (text.size() + 1) * sizeof(wchar_t));
    ::GlobalUnlock(g);
    ok = ::SetClipboardData(CF_UNICODETEXT, g) != nullptr;
  }
  ::CloseClipboard();
  return ok;
}

std::wstring clipboard_text() {
  if (!::OpenClipboard(nullptr)) return L"(not opened)";
  std::wstring out = L"(no text)";
  if (HANDLE d = ::GetClipboardData(CF_UNICODETEXT))
    if (const auto* p = static_cast<const wchar_t*>(::GlobalLock(d))) {
      out = p;
      ::GlobalUnlock(d);
    }
  ::CloseClipboard();
  return out;
}

}  // namespace

TEST(WinDesktop, WindowReceivesTheNonce) {
  const std::string nonce = random_hex(16);
  auto obj = make_host_object("window", setup_with(nonce));
  EXPECT_EQ(obj->spec(), "window:breakout-" + nonce.substr(0, 8));
  ASSERT_TRUE(send_to(window_name(*obj), nonce));
  const HostEvidence e = obj->inspect();
  EXPECT_TRUE(e.changed) << e.summary;
  EXPECT_EQ(e.evidence["window_copydata_messages"], 1u) << e.evidence.dump();
}

TEST(WinDesktop, UntouchedWindowIsUnchangedWithinTheBound) {
  auto obj = make_host_object("window", setup_with(random_hex(16)));
  const auto start = Clock::now();
  const HostEvidence e = obj->inspect();
  EXPECT_FALSE(e.changed) << e.summary;
  EXPECT_EQ(e.evidence["window_copydata_messages"], 0u);
  EXPECT_LT(Clock::now() - start, kWindowWait + std::chrono::milliseconds(1000));
}

TEST(WinDesktop, FloodWithoutTheNonceIsBounded) {
  const std::string nonce = random_hex(16);
  auto obj = make_host_object("window", setup_with(nonce));
  const std::string chunk(64 << 10, 'x');  // 64 x 64 KiB, never the nonce
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(send_to(window_name(*obj), chunk));
  const auto start = Clock::now();
  const HostEvidence e = obj->inspect();
  EXPECT_FALSE(e.changed) << e.summary;
  EXPECT_EQ(e.evidence["window_copydata_messages"], 64u);
  EXPECT_EQ(e.evidence["window_copydata_bytes"], 64u * chunk.size());  // counted, not kept
  EXPECT_LE(e.evidence["window_received"].get<std::string>().size(), 256u + 64u);
  EXPECT_LT(Clock::now() - start, kWindowWait + std::chrono::milliseconds(1000));
  // The flood filled what is kept, yet the nonce sent after it still decides.
  ASSERT_TRUE(send_to(window_name(*obj), "after the flood: " + nonce));
  EXPECT_TRUE(obj->inspect().changed);
}

TEST(WinDesktop, WindowNameIsNotShared) {
  const std::string nonce = random_hex(16);
  auto first = make_host_object("window", setup_with(nonce));
  EXPECT_THROW(make_host_object("window", setup_with(nonce)), std::exception);  // a squatted name is refused
}

TEST(WinDesktop, ClipboardCanaryIsSetReadAndRestored) {
  const std::wstring user = L"the user's text " + win::wide(random_hex(8));
  ASSERT_TRUE(set_clipboard(user));
  auto obj = make_host_object("clipboard-read", setup_with(random_hex(16)));
  EXPECT_EQ(obj->spec(), "clipboard:read");
  const std::wstring during = clipboard_text();
  const HostEvidence e = obj->inspect();
  EXPECT_EQ(e.token.rfind("BREAKOUT-CANARY-", 0), 0u) << e.token;
  EXPECT_EQ(win::narrow(during), e.token);  // what a probe reading the clipboard sees
  obj.reset();
  EXPECT_EQ(clipboard_text(), user);  // the user's text is back, the canary gone
  ASSERT_TRUE(set_clipboard(L""));
  obj = make_host_object("clipboard-read", setup_with(random_hex(16)));
  obj.reset();
  EXPECT_EQ(clipboard_text(), L"(no text)");  // an empty clipboard stays empty: no canary left behind
}

TEST(WinDesktop, ClipboardWriteIsSeenAndUndone) {
  const std::wstring user = L"the user's text " + win::wide(random_hex(8));
  ASSERT_TRUE(set_clipboard(user));
  const std::string nonce = random_hex(16);
  auto obj = make_host_object("clipboard-write", setup_with(nonce));
  EXPECT_FALSE(obj->inspect().changed);  // untouched: still the canary
  ASSERT_TRUE(set_clipboard(win::wide(nonce)));  // what the probe does
  const HostEvidence e = obj->inspect();
  EXPECT_TRUE(e.changed) << e.summary;
  obj.reset();
  EXPECT_EQ(clipboard_text(), user);
}

TEST(WinDesktop, ClipboardAttemptsAreSerialised) {
  auto first = make_host_object("clipboard-read", setup_with(random_hex(16)));
  std::atomic<bool> released{false}, second_before_release{false};
  std::thread other([&] {
    auto second = make_host_object("clipboard-write", setup_with(random_hex(16)));  // waits for the lock
    second_before_release = !released.load();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  released = true;
  first.reset();
  other.join();
  EXPECT_FALSE(second_before_release) << "a second clipboard object was made while the first held the clipboard";
}
