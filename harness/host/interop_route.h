// Whether a route into the other operating system's processes exists on this host, by the harness's own check (outside every sandbox).
//
//   if (auto why = interop_route_unavailable("win-interop")) ... // the host has no such route: *why says so
//
// The routes of fs-write's --via (probes/win/wsl_route.h, probes/win_interop.h): "wsl", a Windows
// program starting a Linux process through wsl.exe; "win-interop", a Linux process in WSL starting
// a Windows program through binfmt_misc. The probe's "unavailable" excuses an execution only when
// this agrees (attempt/excuse.h, route_applies): a sandbox that hides the route from the probe
// on a host that has it is judged as usual. Platform code: host/posix/, host/win/.
#pragma once

#include <optional>
#include <string>

namespace breakout {

// nullopt when `route` exists here; else the host's reason (a route of the other platform, or an
// unknown name, is always absent).
std::optional<std::string> interop_route_unavailable(const std::string& route);

}  // namespace breakout
