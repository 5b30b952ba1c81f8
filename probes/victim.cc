// breakout-probe-victim: the harness-owned victim of class process-reach. Run by the
// HARNESS outside the sandbox (never by a scenario): it holds the secret from
// BREAKOUT_VICTIM_SECRET in memory and environment and appends its status
// (beats with TracerPid, signals received) to --status until --lifetime-ms.
// See probes/common/victim.h for the status lines. Exit 64 on usage errors.
#include <fcntl.h>

#include "probes/common/args.h"
#include "probes/common/victim.h"

namespace {
constexpr const char* kUsage =
    "usage: breakout-probe-victim --status FILE [--lifetime-ms MS]   (secret in BREAKOUT_VICTIM_SECRET)\n";
}

int main(int argc, char** argv) {
  using namespace breakout::probe;
  Args args(argc, argv, kUsage, {{"status", Args::kValue}, {"lifetime-ms", Args::kValue}});
  const std::string status = args.require("status");
  const long long lifetime = args.get_int("lifetime-ms", 100, 120000, 30000);
  const char* secret = std::getenv("BREAKOUT_VICTIM_SECRET");
  if (!secret || !*secret) args.usage_error("BREAKOUT_VICTIM_SECRET is not set");
  const std::string copy = secret;
  int fd = ::open(status.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) {
    std::perror("open status");
    return 1;
  }
  run_victim(copy, fd, "", now_ms() + lifetime);
}
