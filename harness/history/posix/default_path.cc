// The history file's default location on POSIX: XDG Base Directory "state" (XDG_STATE_HOME, else ~/.local/state).
#include <cstdlib>

#include "harness/core/error.h"
#include "harness/history/history.h"

namespace breakout {

namespace fs = std::filesystem;

fs::path default_history_path() {
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) return fs::path(x) / "breakout" / "history.sqlite";
  const char* home = std::getenv("HOME");
  if (!home || !*home) throw Error("history: neither XDG_STATE_HOME nor HOME is set (use --history or --no-history)");
  return fs::path(home) / ".local" / "state" / "breakout" / "history.sqlite";
}

}  // namespace breakout
