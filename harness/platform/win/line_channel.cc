// Windows stub of LineChannel: driver spawners on Windows land with the Windows issue.
#include "harness/platform/line_channel.h"

#include "harness/core/error.h"

namespace breakout {

std::unique_ptr<LineChannel> LineChannel::start(const LaunchSpec&, Containment*, const Limits&) {
  throw Error("driver spawners: unsupported on this platform (Windows support lands with the Windows issue)");
}

std::string describe_wait_status(int status) { return "exited with status " + std::to_string(status); }

}  // namespace breakout
