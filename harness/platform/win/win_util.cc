// Win32 error text and WTF-8 <-> UTF-16 conversion for the Windows platform layer.
#include "harness/platform/win/win_util.h"

#include "harness/core/error.h"
#include "harness/core/wtf8.h"

namespace breakout::win {

static_assert(sizeof(wchar_t) == sizeof(char16_t), "Windows wchar_t is UTF-16");

std::string last_error_text(const std::string& step, DWORD code) {
  wchar_t* buf = nullptr;
  // FormatMessageW with FORMAT_MESSAGE_ALLOCATE_BUFFER: the text is LocalFree'd below
  // (Microsoft Learn, "FormatMessageW function (winbase.h)").
  const DWORD n = ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                       FORMAT_MESSAGE_IGNORE_INSERTS | FORMAT_MESSAGE_MAX_WIDTH_MASK,
                                   nullptr, code, 0, reinterpret_cast<wchar_t*>(&buf), 0, nullptr);
  std::string text = n > 0 && buf != nullptr ? narrow(std::wstring_view(buf, n)) : "unknown error";
  if (buf != nullptr) ::LocalFree(buf);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r' || text.back() == '\n')) text.pop_back();
  return step + ": " + text + " (error " + std::to_string(code) + ")";
}

void throw_last_error(const std::string& step, DWORD code) { throw Error("win32", last_error_text(step, code)); }

std::wstring wide(std::string_view wtf8) {
  const std::u16string u = utf16_from_wtf8(wtf8);
  return std::wstring(u.begin(), u.end());
}

std::string narrow(std::wstring_view w) {
  return wtf8_from_utf16(std::u16string_view(reinterpret_cast<const char16_t*>(w.data()), w.size()));
}

}  // namespace breakout::win
