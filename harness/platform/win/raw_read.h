// The first bytes of a file or raw device, read the way a raw disk must be read; shared by probe device-read and the harness.
//
//   RawRead r = read_leading_bytes(L"\\\\.\\PhysicalDrive0");
//   if (r.error == 0) std::string t = device_digest(nonce, r.data);   // what the probe prints
//
// One ReadFile at offset 0 of kDeviceReadSize bytes into a page-aligned buffer: a disk handle
// takes only whole sectors at sector-aligned offsets, into a buffer the device can reach
// (Microsoft Learn, "CreateFileW", section "Physical Disks and Volumes"; "File Buffering",
// alignment and file access requirements). 4096 is a whole number of sectors on 512-byte and
// 4Kn disks; a file shorter than that simply reads short. The harness's object and the probe
// call this same function, so the digests agree byte for byte. Windows only, header-only.
#pragma once

#include <windows.h>

#include <string>
#include <string_view>

#include "harness/core/sha256.h"
#include "harness/platform/win/unique_handle.h"

namespace breakout {

inline constexpr DWORD kDeviceReadSize = 4096;
// The bytes a digest covers: the first sector of a 512-byte-sector disk (the MBR / protective MBR).
inline constexpr std::size_t kDeviceDigestBytes = 512;

struct RawRead {
  std::string data;       // at most kDeviceReadSize bytes
  DWORD error = 0;        // 0: opened and read
  const char* step = "";  // the call that failed
};

inline RawRead read_leading_bytes(const std::wstring& path) {
  RawRead r;
  // A disk must be opened OPEN_EXISTING with FILE_SHARE_WRITE (the volumes on it stay in use);
  // GENERIC_READ alone asks for nothing but the read.
  UniqueHandle h(::CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_EXISTING,
                               FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!h) {
    r.error = ::GetLastError();
    r.step = "CreateFileW";
    return r;
  }
  void* buffer = ::VirtualAlloc(nullptr, kDeviceReadSize, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);  // page-aligned
  if (buffer == nullptr) {
    r.error = ::GetLastError();
    r.step = "VirtualAlloc";
    return r;
  }
  DWORD got = 0;
  if (::ReadFile(h.get(), buffer, kDeviceReadSize, &got, nullptr)) {
    r.data.assign(static_cast<const char*>(buffer), got);
  } else {
    r.error = ::GetLastError();
    r.step = "ReadFile";
  }
  ::VirtualFree(buffer, 0, MEM_RELEASE);
  return r;
}

// The keyed digest of the first kDeviceDigestBytes: proves the bytes were read without letting
// them (a disk's boot sector, a file's content) leave, and without a digest anyone could look up.
inline std::string device_digest(std::string_view nonce, std::string_view data) {
  return keyed_sha256_hex(nonce, data.substr(0, kDeviceDigestBytes));
}

}  // namespace breakout
