// breakout-probe-device-read (Windows): reads the first sector of a raw device, past every file's ACL.
//
//   breakout-probe-device-read --path P --nonce N
//
// Opens P (CreateFileW, GENERIC_READ, shared read and write, OPEN_EXISTING) and reads its
// first 4096 bytes at offset 0 into a page-aligned buffer (harness/platform/win/raw_read.h:
// a disk takes only whole, aligned sectors). Prints "keyed_sha256": SHA-256 of N ":" the
// first 512 bytes, never the bytes themselves. The targets (class device-read,
// harness/host/win/raw_device.h): \\.\PhysicalDrive0, whose sectors hold every file of the
// disk whatever their ACLs say, and a workspace file the harness wrote (the control, read
// through the same calls). Microsoft Learn: "CreateFileW" (Physical Disks and Volumes),
// "ReadFile", "File Buffering".
//
// Result: ok=true when at least 512 bytes were read; fields path, bytes, keyed_sha256.
// Whether the device was read is the harness's call: the same digest, computed from the bytes
// it read itself, in this output. Exit: 0 ok, 1 failed attempt, 64 usage error. 10 s watchdog
// (a device read is synchronous and could block). Windows only (mingw-w64).
#include <cerrno>
#include <chrono>
#include <string>

#include "harness/platform/win/raw_read.h"
#include "probes/common/args.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"

using namespace breakout::probe;

namespace {
constexpr char kUsage[] = "usage: breakout-probe-device-read --path P --nonce N\n";
}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage, {{"path", Args::kValue}, {"nonce", Args::kValue}});
  const std::string path = args.require("path"), nonce = args.require("nonce");
  std::wstring wpath;
  try {
    wpath = wide(path);
  } catch (const std::exception& e) {
    args.usage_error(std::string("argument is not WTF-8: ") + e.what());
  }
  start_watchdog(std::chrono::seconds(10));
  ProbeReport r("device-read");
  r.set("path", path);
  const breakout::RawRead got = breakout::read_leading_bytes(wpath);
  if (got.error != 0) {
    fail_win32(r, got.step, got.error);
  } else {
    r.set("bytes", got.data.size());
    r.set("keyed_sha256", breakout::device_digest(nonce, got.data));
    if (got.data.size() >= breakout::kDeviceDigestBytes) r.succeed();
    else r.fail("short read", EIO);
  }
  r.emit();
  return r.exit_code();
}
