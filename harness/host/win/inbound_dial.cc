// dial_in on Windows: class net-inbound is Linux-only so far (docs/windows.md); nothing dials.
#include "harness/host/inbound_dial.h"

namespace breakout {

DialResult dial_in(const std::string&, std::chrono::milliseconds) {
  DialResult d;
  d.error = "net-inbound: not implemented on Windows (docs/windows.md)";
  return d;
}

}  // namespace breakout
