// breakout-probe-win-desktop (Windows): reaches the user's desktop: a message to a harness window, the clipboard.
//
//   breakout-probe-win-desktop --target window:NAME|clipboard:read|clipboard:write|own:window --nonce N
//
// window:NAME      FindWindowW(NAME, NAME), then WM_COPYDATA carrying N through SendMessageTimeoutW
//                  (2 s, SMTO_ABORTIFHUNG): the shatter-style reach of a process on the same desktop.
// clipboard:read   OpenClipboard, GetClipboardData(CF_UNICODETEXT); prints the text (at most 64 KiB)
//                  as "clipboard text: ..." — whatever a host program left there.
// clipboard:write  OpenClipboard (owner: a message-only window of ours), EmptyClipboard,
//                  SetClipboardData(CF_UNICODETEXT, N): the next paste on the host is ours.
// own:window (the control): a window of its own, pumped by a second thread, found by name and
//                  sent the own token (shared/own_token.h) the same way; the token is printed
//                  only once the window received it.
// A private desktop hides other desktops' windows from FindWindowW; JOB_OBJECT_UILIMIT_HANDLES
// refuses USER handles of processes outside the job; the clipboard is the window station's
// (Microsoft Learn, "Window Stations", "JOBOBJECT_BASIC_UI_RESTRICTIONS", "WM_COPYDATA message").
//
// Result: ok=true when the send / read / write succeeded; fields target, step, answer.
// Whether the host was reached is the harness's call (its window received N, the canary in the
// output, N on the clipboard). Exit: 0 ok, 1 failed attempt, 64 usage error. 10 s watchdog.
// Windows only (mingw-w64).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"
#include "probes/win/target_args.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-win-desktop --target window:NAME|clipboard:read|clipboard:write|own:window --nonce N\n";
constexpr std::size_t kPrintLimit = 64u << 10;  // bytes of clipboard text printed

// WM_COPYDATA with `data` to `h`; the receiver's answer in the report.
void send_copydata(HWND h, const std::string& data, ProbeReport& r) {
  COPYDATASTRUCT cds{};
  cds.dwData = 0x6272;  // 'br': any value; the harness looks at the bytes only
  cds.cbData = static_cast<DWORD>(data.size());
  cds.lpData = const_cast<char*>(data.data());
  DWORD_PTR answer = 0;
  if (::SendMessageTimeoutW(h, WM_COPYDATA, 0, reinterpret_cast<LPARAM>(&cds), SMTO_ABORTIFHUNG | SMTO_BLOCK, 2000,
                            &answer) == 0)
    return fail_win32(r, "SendMessageTimeoutW", ::GetLastError());
  r.set("answer", static_cast<unsigned long long>(answer));
  r.succeed();
}

HWND find(const std::wstring& name, ProbeReport& r) {
  HWND h = ::FindWindowW(name.c_str(), name.c_str());
  if (h == nullptr) {
    const DWORD e = ::GetLastError();  // 0 when nothing matched: say so as "not found"
    fail_win32(r, "FindWindowW", e != 0 ? e : static_cast<DWORD>(ERROR_FILE_NOT_FOUND));
  }
  return h;
}

void reach_window(const std::wstring& name, const std::string& nonce, ProbeReport& r) {
  if (HWND h = find(name, r)) send_copydata(h, nonce, r);
}

// The clipboard opened for the scope; bounded retries (another program may hold it).
struct Clipboard {
  bool open = false;
  explicit Clipboard(HWND owner) {
    for (int i = 0; i < 20 && !open; ++i) {
      open = ::OpenClipboard(owner) != 0;
      if (!open) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~Clipboard() {
    if (open) ::CloseClipboard();
  }
};

void read_clipboard(ProbeReport& r) {
  Clipboard c(nullptr);
  if (!c.open) return fail_win32(r, "OpenClipboard", ::GetLastError());
  HANDLE d = ::GetClipboardData(CF_UNICODETEXT);
  if (d == nullptr) return fail_win32(r, "GetClipboardData", ::GetLastError());
  const auto* p = static_cast<const wchar_t*>(::GlobalLock(d));
  if (p == nullptr) return fail_win32(r, "GlobalLock", ::GetLastError());
  const std::size_t cap = std::min<std::size_t>(::GlobalSize(d) / sizeof(wchar_t), kPrintLimit / sizeof(wchar_t));
  std::size_t n = 0;
  while (n < cap && p[n] != L'\0') ++n;
  const std::string text = breakout::wtf8_from_utf16(std::u16string(p, p + n));
  ::GlobalUnlock(d);
  std::printf("clipboard text: %s\n", text.c_str());
  r.set("bytes", static_cast<unsigned long long>(text.size()));
  r.succeed();
}

void write_clipboard(const std::string& nonce, ProbeReport& r) {
  // The owner must be a window: after OpenClipboard(NULL), EmptyClipboard leaves no owner and
  // SetClipboardData fails (Microsoft Learn, "SetClipboardData function").
  HWND owner = ::CreateWindowExW(0, L"STATIC", L"", 0, 0, 0, 0, 0, HWND_MESSAGE, nullptr, nullptr, nullptr);
  if (owner == nullptr) return fail_win32(r, "CreateWindowExW", ::GetLastError());
  {
    Clipboard c(owner);
    if (!c.open) return fail_win32(r, "OpenClipboard", ::GetLastError());
    if (!::EmptyClipboard()) return fail_win32(r, "EmptyClipboard", ::GetLastError());
    const std::wstring w = wide(nonce);
    HGLOBAL g = ::GlobalAlloc(GMEM_MOVEABLE, (w.size() + 1) * sizeof(wchar_t));
    if (g == nullptr) return fail_win32(r, "GlobalAlloc", ::GetLastError());
    std::copy(w.c_str(), w.c_str() + w.size() + 1, static_cast<wchar_t*>(::GlobalLock(g)));
    ::GlobalUnlock(g);
    if (::SetClipboardData(CF_UNICODETEXT, g) == nullptr) {
      ::GlobalFree(g);
      return fail_win32(r, "SetClipboardData", ::GetLastError());
    }
  }
  ::DestroyWindow(owner);  // the data stays: it is no delayed rendering
  r.succeed();
}

// The control's window: made and pumped on its own thread, so the send crosses threads as the
// real one crosses processes. Received bytes land in `got` (the window thread writes, then ends).
std::string g_own_received;

LRESULT CALLBACK own_proc(HWND h, UINT msg, WPARAM w, LPARAM l) {
  if (msg == WM_COPYDATA) {
    const auto* cds = reinterpret_cast<const COPYDATASTRUCT*>(l);
    if (cds != nullptr && cds->lpData != nullptr)
      g_own_received.assign(static_cast<const char*>(cds->lpData), std::min<DWORD>(cds->cbData, 256));
    ::PostQuitMessage(0);
    return TRUE;
  }
  return ::DefWindowProcW(h, msg, w, l);
}

void own_window(const std::string& nonce, ProbeReport& r) {
  const std::wstring name = L"breakout-own-" + wide(nonce.substr(0, 8));
  HANDLE ready = ::CreateEventW(nullptr, TRUE, FALSE, nullptr);
  if (ready == nullptr) return fail_win32(r, "CreateEventW", ::GetLastError());
  DWORD create_error = 0, pump_thread = 0;
  std::thread pump([&] {
    pump_thread = ::GetCurrentThreadId();
    WNDCLASSEXW wc{};
    wc.cbSize = sizeof wc;
    wc.lpfnWndProc = own_proc;
    wc.hInstance = ::GetModuleHandleW(nullptr);
    wc.lpszClassName = name.c_str();
    HWND h = ::RegisterClassExW(&wc) == 0 ? nullptr
             : ::CreateWindowExW(0, name.c_str(), name.c_str(), WS_OVERLAPPED, 0, 0, 0, 0, nullptr, nullptr,
                                 wc.hInstance, nullptr);
    const DWORD e = ::GetLastError();
    create_error = h != nullptr ? 0 : e != 0 ? e : ERROR_GEN_FAILURE;  // Wine without a display driver: 0
    ::SetEvent(ready);
    if (h == nullptr) return;
    MSG m;  // ends with the WM_COPYDATA (PostQuitMessage) or the 10 s watchdog
    while (::GetMessageW(&m, nullptr, 0, 0) > 0) ::DispatchMessageW(&m);
    ::DestroyWindow(h);
  });
  ::WaitForSingleObject(ready, 5000);
  if (create_error != 0) {
    pump.join();
    ::CloseHandle(ready);
    return fail_win32(r, "CreateWindowExW (own window)", create_error);
  }
  const std::string token = breakout::own_token(nonce);
  reach_window(name, token, r);
  ::PostThreadMessageW(pump_thread, WM_QUIT, 0, 0);  // a send that failed left the pump waiting
  pump.join();
  ::CloseHandle(ready);
  if (!r.ok()) return;
  if (g_own_received != token) return r.fail("own window received", EIO);
  std::printf("own window received: %s\n", g_own_received.c_str());
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  const TargetArgs args(argc, wargv, kUsage);
  const std::string& target = args.target;
  const std::string& nonce = args.nonce;
  start_watchdog(std::chrono::seconds(10));  // a send to a hung window or a held clipboard must not hold the run
  ProbeReport r("win-desktop");
  r.set("target", target);
  if (target == "own:window") own_window(nonce, r);
  else if (target == "clipboard:read") read_clipboard(r);
  else if (target == "clipboard:write") write_clipboard(nonce, r);
  else if (target.rfind("window:", 0) == 0) {
    std::wstring name;
    try {
      name = wide(target.substr(7));
    } catch (const std::exception& e) {
      args.usage_error(std::string("target is not WTF-8: ") + e.what());
    }
    reach_window(name, nonce, r);
  } else {
    args.usage_error("unknown target '" + target + "'");
  }
  std::fflush(stdout);
  r.emit();
  return r.exit_code();
}
