// Windows stub of plant_host_marks (security-descriptor snapshots land with the Windows issue).
#include "harness/oracle/host_marks.h"

#include "harness/core/error.h"

namespace breakout {

void plant_host_marks(const std::filesystem::path&, const std::string&) {
  throw Error("plant_host_marks: unsupported on this platform (Windows support lands with the Windows issue)");
}

}  // namespace breakout
