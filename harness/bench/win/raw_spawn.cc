// The raw spawn floor on Windows: not implemented yet (breakout bench is refused there, like run).
#include "harness/bench/spawn_probe.h"
#include "harness/core/error.h"

namespace breakout::bench {

SpawnSample RawTarget::spawn_once() { throw Error("raw spawn: not implemented on Windows (docs/windows.md)"); }

}  // namespace breakout::bench
