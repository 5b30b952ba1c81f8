// Win32 glue for the Windows platform layer: GetLastError as breakout::Error, WTF-8 <-> UTF-16 at the API boundary.
#pragma once

#include <windows.h>

#include <string>
#include <string_view>

namespace breakout::win {

// "<step>: <FormatMessage text> (error N)" for `code` (default: GetLastError()).
std::string last_error_text(const std::string& step, DWORD code = ::GetLastError());
// Throws Error("win32", last_error_text(step, code)); call right after the failing API.
[[noreturn]] void throw_last_error(const std::string& step, DWORD code = ::GetLastError());

// WTF-8 (core/wtf8.h) to a wide string for W APIs; throws Error("bad-wtf8", "...").
std::wstring wide(std::string_view wtf8);
// A wide string from a W API as WTF-8 (lossless, lone surrogates included).
std::string narrow(std::wstring_view w);

}  // namespace breakout::win
