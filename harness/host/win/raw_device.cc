// Raw device reads: the harness reads \\.\PhysicalDrive0's first bytes itself, or writes the control's file; the keyed digest is the token.
#include "harness/host/win/raw_device.h"

#include <windows.h>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/platform/win/raw_read.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

// What the harness itself gets from `path`; throws with the failing call when it gets less than a digest covers.
std::string read_or_throw(const std::wstring& path) {
  RawRead r = read_leading_bytes(path);
  if (r.error != 0) win::throw_last_error(std::string(r.step) + " " + win::narrow(path), r.error);
  check(r.data.size() >= kDeviceDigestBytes, "short-read",
        win::narrow(path) + ": read " + std::to_string(r.data.size()) + " bytes, fewer than the " +
            std::to_string(kDeviceDigestBytes) + " a digest covers");
  return r.data;
}

class DeviceSecret : public HostObject {
 public:
  // `owned`: the harness wrote `path` for this attempt and removes it again (the control).
  DeviceSecret(std::wstring path, bool owned, const HostObjectSetup& s) : path_(std::move(path)), owned_(owned) {
    try {
      token_ = device_digest(s.nonce, read_or_throw(path_));
    } catch (...) {  // no destructor runs for a half-made object: remove the control's file here
      if (owned_) ::DeleteFileW(path_.c_str());
      throw;
    }
  }
  ~DeviceSecret() override {
    if (owned_) ::DeleteFileW(path_.c_str());
  }
  std::string spec() const override { return win::narrow(path_); }
  HostEvidence inspect() override {
    HostEvidence e;
    e.token = token_;  // only a probe that read the same bytes can print it: the nonce keys the digest
    e.evidence["device"] = win::narrow(path_);
    e.evidence["device_digest_bytes"] = kDeviceDigestBytes;
    e.summary = win::narrow(path_) + ": the harness read its first " + std::to_string(kDeviceDigestBytes) +
                " bytes; the token is their digest keyed by the nonce";
    return e;
  }

 private:
  std::wstring path_;
  bool owned_;
  std::string token_;
};

// The control's file: fresh random content, so its digest is as unguessable as the disk's.
std::wstring write_own_device(const HostObjectSetup& s) {
  const std::wstring path = (s.workspace / ("device-" + s.nonce.substr(0, 8) + ".bin")).wstring();
  const std::string content = random_hex(static_cast<int>(kDeviceDigestBytes / 2));
  UniqueHandle h(::CreateFileW(path.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!h) {
    const DWORD e = ::GetLastError();
    win::throw_last_error("CreateFileW " + win::narrow(path), e);
  }
  DWORD done = 0;
  if (!::WriteFile(h.get(), content.data(), static_cast<DWORD>(content.size()), &done, nullptr) ||
      done != content.size()) {
    const DWORD e = ::GetLastError();
    win::throw_last_error("WriteFile " + win::narrow(path), e);
  }
  return path;
}

}  // namespace

std::unique_ptr<HostObject> make_raw_device(const std::string& name, const HostObjectSetup& s) {
  if (name == "physical-drive") return std::make_unique<DeviceSecret>(kPhysicalDrive, false, s);
  if (name == "own-device") return std::make_unique<DeviceSecret>(write_own_device(s), true, s);
  throw Error("unknown raw device object " + name);
}

std::optional<std::string> raw_device_unavailable(const std::string& name) {
  if (name != "physical-drive") return std::nullopt;
  // The same open and read the object makes. A raw disk opens for Administrators only, so an
  // unelevated harness is refused (Microsoft Learn, "CreateFileW", "Physical Disks and Volumes").
  const RawRead r = read_leading_bytes(kPhysicalDrive);
  if (r.error != 0)
    return "the harness cannot read \\\\.\\PhysicalDrive0 itself (" + win::last_error_text(std::string(r.step), r.error) +
           (r.error == ERROR_ACCESS_DENIED ? "): raw disks open for Administrators only, run breakout elevated"
            : r.error == ERROR_FILE_NOT_FOUND || r.error == ERROR_PATH_NOT_FOUND ? "): this host has no such device"
                                                                                : ")");
  if (r.data.size() < kDeviceDigestBytes)
    return "\\\\.\\PhysicalDrive0 gave the harness " + std::to_string(r.data.size()) + " bytes, fewer than the " +
           std::to_string(kDeviceDigestBytes) + " a digest covers";
  return std::nullopt;
}

}  // namespace breakout
