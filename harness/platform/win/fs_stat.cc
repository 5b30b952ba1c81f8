// Windows stub of stat_path (Windows support lands with the Windows issue).
#include "harness/core/error.h"
#include "harness/oracle/fs_snapshot.h"

namespace breakout {

bool stat_path(const std::filesystem::path&, FileState&) {
  throw Error("stat_path: unsupported on this platform (Windows support lands with the Windows issue)");
}

}  // namespace breakout
