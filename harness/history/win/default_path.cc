// The history file's default location on Windows: %LOCALAPPDATA%\breakout\history.sqlite.
//
// Local, not Roaming, AppData: like XDG_STATE_HOME on POSIX it is machine-local state that grows
// with every run, which a roaming profile should not copy between machines (Microsoft Learn,
// "KNOWNFOLDERID": FOLDERID_LocalAppData). Asked of the shell rather than read from the
// environment, so a caller's stray HOME or XDG_STATE_HOME (Wine passes Unix ones through) never
// moves it.
#include <windows.h>
#include <shlobj.h>

#include <memory>

#include "harness/history/history.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace fs = std::filesystem;

fs::path default_history_path() {
  PWSTR raw = nullptr;
  const HRESULT hr = ::SHGetKnownFolderPath(FOLDERID_LocalAppData, KF_FLAG_DEFAULT, nullptr, &raw);
  // Microsoft Learn: the caller frees the string with CoTaskMemFree, also when the call fails.
  const std::unique_ptr<wchar_t, decltype(&::CoTaskMemFree)> owned(raw, &::CoTaskMemFree);
  if (FAILED(hr))
    win::throw_last_error("history: SHGetKnownFolderPath(FOLDERID_LocalAppData) (use --history or --no-history)",
                          static_cast<DWORD>(hr));
  return fs::path(owned.get()) / L"breakout" / L"history.sqlite";
}

}  // namespace breakout
