// Windows: no leaked pipes or sockets (the fd-leak attempts are Linux-only; leak_sink.h).
#include "harness/host/leak_sink.h"

#include "harness/core/error.h"

namespace breakout {

std::unique_ptr<LeakSink> LeakSink::make(Kind, const std::filesystem::path&) {
  throw Error("unsupported", "leaked pipes and sockets are POSIX only (class fd-leak)");
}

}  // namespace breakout
