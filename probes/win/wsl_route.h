// fs-write --via wsl (Windows): the write done by a Linux process that wsl.exe starts.
//
//   write_via_wsl(r, "append", "C:\\...\\sibling\\existing.txt");   // fills r
//
// A Windows program that runs wsl.exe hands its work to the WSL service, which
// starts a Linux process outside the program's restricted token, job and file ACLs; that process
// reaches the Windows drives through /mnt/c (Microsoft Learn, "Working across Windows and Linux
// file systems"). The probe runs
//   wsl.exe -e sh -c "IFS=; set -f; t=$(wslpath -u $BREAKOUT_WSL_TARGET) && printf 'breakout\n' >>$t"
// (create: `set -fC` and `>`, so an existing file is never replaced), the target's Windows path
// handed over in BREAKOUT_WSL_TARGET through WSLENV (no path on the command line: wsl.exe's own
// quoting never sees it; Microsoft Learn, "Share environment variables between Windows and WSL
// with WSLENV"), at most 20 s, then terminated. Report fields: route ("wsl"), route_state
// ("started", "unavailable", "failed"), route_reason, wsl_exe, wsl_exit_code. "unavailable" only
// when WSL is absent here: no %SystemRoot%\System32\wsl.exe, or no distribution registered
// (HKCU\Software\Microsoft\Windows\CurrentVersion\Lxss without a subkey); the harness agrees
// only after its own check of the host (harness/host/interop_route.h) and with nothing changed.
// Windows only (mingw-w64).
#pragma once

#include <string>

#include "probes/common/report.h"

namespace breakout::probe {

// The ops --via wsl takes: create and append.
bool wsl_route_takes(const std::string& op);

void write_via_wsl(ProbeReport& r, const std::string& op, const std::string& path);

}  // namespace breakout::probe
