// breakout-probe-sleep: runs for a while, then leaves a mark (no-timeout contract:
// a spawner given no timeout must not impose one).
//
//   breakout-probe-sleep --ms N --mark FILE
//
// Sleeps N ms (0..3600000, measured on a monotonic clock, resumed after
// signals), then creates FILE (an absolute path) containing "slept N\n" and
// prints its report. The mark proves from outside that the probe ran to the end.
// Result: ok=true when the mark was written; else errno/errname of "mark".
// Exit: 0 ok, 1 failed attempt, 64 usage error.
//
// Portable: Linux and Windows (mingw-w64).
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "probes/common/args.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-sleep --ms N --mark FILE   (FILE absolute)\n";

bool is_absolute(const std::string& p) {
#ifdef _WIN32
  return p.size() >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/');
#else
  return !p.empty() && p[0] == '/';
#endif
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"ms", Args::kValue}, {"mark", Args::kValue}});
  const long long ms = args.require_int("ms", 0, 3600000);
  const std::string mark = args.require("mark");
  if (!is_absolute(mark)) args.usage_error("--mark must be an absolute path");

  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_until(start + std::chrono::milliseconds(ms));

  ProbeReport r("sleep");
  r.set("ms", ms);
  r.set("mark", mark);
  r.set("slept_ms", static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::steady_clock::now() - start)
                                               .count()));
  std::FILE* f = std::fopen(mark.c_str(), "wb");
  if (!f) {
    r.fail("mark", errno);
  } else {
    const bool wrote = std::fprintf(f, "slept %lld\n", ms) > 0;
    if (std::fclose(f) != 0 || !wrote) {
      r.fail("mark", errno);
    } else {
      r.succeed();
    }
  }
  r.emit();
  return r.exit_code();
}
