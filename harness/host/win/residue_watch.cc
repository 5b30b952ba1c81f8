// Windows: no residue watch yet. The counterpart of fanotify's directory-entry events would be
// ReadDirectoryChangesW on %TEMP% plus the creator from an ETW file-I/O trace, which needs a
// real host to develop against (docs/spawners.md, "What the spawner leaves behind").
#include "harness/host/spawner_residue.h"

namespace breakout {

std::unique_ptr<ResidueWatch> ResidueWatch::start(const std::filesystem::path&, const std::filesystem::path&,
                                                  std::string* why_not) {
  *why_not = "not implemented on Windows (the Linux watch is fanotify(7))";
  return nullptr;
}

}  // namespace breakout
