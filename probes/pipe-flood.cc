// breakout-probe-pipe-flood: floods stdout and stderr with a checkable pattern.
//
//   breakout-probe-pipe-flood --bytes N [--report FILE]
//
// Writes exactly N bytes of flood_byte(1, i) to stdout and N bytes of
// flood_byte(2, i) to stderr (shared/flood_pattern.h), alternating
// between the streams in chunks of 4 KiB..64 KiB whose sizes vary
// deterministically, so a spawner that drains one pipe at a time deadlocks and
// one that drops, reorders or merges bytes fails check_flood(). Short writes,
// EINTR and non-blocking pipes are handled. N is at most 1 GiB.
//
// Unlike every other probe it prints NO report line on stdout (that would break
// the byte-exact check): the report goes to FILE when --report is given, else
// nowhere. Report fields: bytes, stdout_written, stderr_written, chunks; on
// failure errno/errname of the failing write (EPIPE: the reader went away).
// Exit: 0 when both streams were written completely, 1 otherwise, 64 usage error.
//
// Portable: Linux and Windows (mingw-w64; streams switched to binary mode).
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#else
#include "probes/common/posix.h"
#endif

#include "probes/common/args.h"
#include "shared/flood_pattern.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-pipe-flood --bytes N [--report FILE]\n";
constexpr std::size_t kUnit = 4096;

// Chunk k of a stream: 1..16 units; the two streams use different sequences.
std::size_t chunk_size(int stream, std::uint64_t k) {
  return kUnit * (1 + (stream == 1 ? k * 7 : k * 5 + 3) % 16);
}

// Writes all of buf to fd; 0 or errno.
int write_fully(int fd, const char* buf, std::size_t n) {
#ifdef _WIN32
  while (n > 0) {
    int w = _write(fd, buf, static_cast<unsigned>(n));
    if (w <= 0) return w < 0 ? errno : EIO;
    buf += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
#else
  return write_all(fd, buf, n);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"bytes", Args::kValue}, {"report", Args::kValue}});
  const auto total = static_cast<std::uint64_t>(args.require_int("bytes", 0, 1LL << 30));
  const auto report_file = args.get("report");
#ifdef _WIN32
  _setmode(1, _O_BINARY);
  _setmode(2, _O_BINARY);
#else
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe becomes EPIPE in the report, not a silent death
#endif

  ProbeReport r("pipe-flood");
  r.set("bytes", static_cast<unsigned long long>(total));
  std::uint64_t written[3] = {0, 0, 0};  // by stream number
  std::uint64_t chunks = 0;
  std::vector<char> buf(16 * kUnit);
  int err = 0;
  int failed_stream = 0;
  for (std::uint64_t k = 0; !err && (written[1] < total || written[2] < total); ++k) {
    for (int stream = 1; stream <= 2 && !err; ++stream) {
      if (written[stream] >= total) continue;
      std::uint64_t n = chunk_size(stream, k);
      if (n > total - written[stream]) n = total - written[stream];
      breakout::fill_flood(stream, written[stream], buf.data(), n);
      err = write_fully(stream, buf.data(), static_cast<std::size_t>(n));
      if (err) {
        failed_stream = stream;
      } else {
        written[stream] += n;
        ++chunks;
      }
    }
  }
  r.set("stdout_written", static_cast<unsigned long long>(written[1]));
  r.set("stderr_written", static_cast<unsigned long long>(written[2]));
  r.set("chunks", static_cast<unsigned long long>(chunks));
  if (err) {
    r.fail(failed_stream == 1 ? "write stdout" : "write stderr", err);
  } else {
    r.succeed();
  }
  if (report_file) r.emit_to_file(*report_file);
  return r.exit_code();
}
