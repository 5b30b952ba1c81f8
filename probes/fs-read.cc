// breakout-probe-fs-read: tries to read a file it is given.
//
//   breakout-probe-fs-read --path P [--echo | --key K]
//
// Reads at most 1 MiB of P and reports "size" (bytes read), "truncated" (P had
// more), "sha256" (of the bytes read) and, for regular files, "file_size"
// (size/truncated/sha256 are absent when the open failed).
// --echo (only for the harness's FAKE canary trees): additionally prints the bytes
// read to stdout, before the report line, as
//     BREAKOUT-ECHO-BEGIN\n<bytes>[\n]BREAKOUT-ECHO-END\n
// (a '\n' is added when non-empty bytes do not end with one), so the canary-token
// oracle sees what leaked. Without --echo no content is ever printed.
// --key K (real-host mode, docs/real-host.md): "keyed_sha256" = SHA-256 of
// K ":" bytes replaces "sha256", so the harness can verify the read against its
// own digest of the real file while neither the content nor a stable digest of a
// real secret ever reaches the output.
//
// Result: ok=true when open and read succeeded; else errno/errname of the failing
// step (open, read). ENOENT may mean the sandbox hides P; EACCES/EPERM that it
// refuses it. The open is O_NONBLOCK and, for non-regular files, reads stop at
// EAGAIN, so FIFOs and devices cannot block the probe. A deadline of 10 s bounds
// everything else (slow FUSE, ...).
// Exit: 0 ok, 1 failed attempt, 64 usage error.
//
// POSIX only (Linux).
#include <cerrno>
#include <cstdio>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/core/sha256.h"
#include "probes/common/args.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-fs-read --path P [--echo | --key K]\n";
constexpr std::size_t kMaxRead = 1u << 20;

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"path", Args::kValue}, {"echo", Args::kFlag}, {"key", Args::kValue}});
  const std::string path = args.require("path");
  const bool echo = args.has("echo");
  const bool keyed = args.has("key");
  if (echo && keyed) args.usage_error("--echo and --key exclude each other");
  ::alarm(10);  // hard bound: SIGALRM's default action ends a read stuck in the kernel

  ProbeReport r("fs-read");
  r.set("path", path);

  std::string data;
  bool truncated = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    r.fail("open", errno);
  } else {
    struct stat st{};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular) r.set("file_size", static_cast<long long>(st.st_size));
    char buf[65536];
    int read_errno = 0;
    // Read one byte past the cap to learn whether P has more.
    while (data.size() <= kMaxRead) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) {
        data.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0) {
        break;
      } else if (errno == EINTR) {
        continue;
      } else if (!regular && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        break;  // FIFO/socket/device with nothing more now: what we have is it
      } else {
        read_errno = errno;
        break;
      }
    }
    ::close(fd);
    if (data.size() > kMaxRead) {
      data.resize(kMaxRead);
      truncated = true;
    }
    if (read_errno != 0) {
      r.fail("read", read_errno);
    } else {
      r.succeed();
    }
  }
  if (fd >= 0) {
    r.set("size", static_cast<unsigned long long>(data.size()));
    r.set("truncated", truncated);
    if (keyed)
      r.set("keyed_sha256", breakout::keyed_sha256_hex(args.require("key"), data));
    else
      r.set("sha256", breakout::sha256_hex(data));
  }
  if (echo && fd >= 0) {
    r.set("echoed", static_cast<unsigned long long>(data.size()));
    std::fputs("BREAKOUT-ECHO-BEGIN\n", stdout);
    std::fwrite(data.data(), 1, data.size(), stdout);
    if (!data.empty() && data.back() != '\n') std::fputc('\n', stdout);
    std::fputs("BREAKOUT-ECHO-END\n", stdout);
  }
  r.emit();
  return r.exit_code();
}
