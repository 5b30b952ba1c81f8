// The Linux side of interop_route.h: WSL's binfmt_misc interop entry and the Windows cmd.exe it would start.
#include "harness/host/interop_route.h"

#include <filesystem>
#include <fstream>

namespace breakout {

// WSL's init registers WSLInterop (WSLInterop-late on newer WSL with systemd) under binfmt_misc;
// its first line is "enabled" while interop is on (Linux, Documentation/admin-guide/binfmt-misc.rst).
std::optional<std::string> interop_route_unavailable(const std::string& route) {
  if (route != "win-interop") return "route " + route + " is a Windows program's (wsl.exe); this is Linux";
  bool enabled = false;
  for (const char* name : {"WSLInterop", "WSLInterop-late"}) {
    std::ifstream in(std::string("/proc/sys/fs/binfmt_misc/") + name);
    std::string first;
    enabled = enabled || (in && std::getline(in, first) && first == "enabled");
  }
  if (!enabled) return "the host has no enabled WSLInterop entry under /proc/sys/fs/binfmt_misc (not WSL, or interop off)";
  std::error_code ec;
  if (!std::filesystem::exists("/mnt/c/Windows/System32/cmd.exe", ec))
    return "the host has no /mnt/c/Windows/System32/cmd.exe";
  return std::nullopt;
}

}  // namespace breakout
