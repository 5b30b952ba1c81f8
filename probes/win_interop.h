// fs-write --via win-interop (Linux in WSL): the write done by a Windows program the kernel starts through WSL's interop.
//
//   write_via_win_interop(r, "append", "/tmp/breakout-.../sibling/existing.txt");   // fills r
//
// In WSL, exec of a Windows PE file is handed by binfmt_misc (the WSLInterop
// entry WSL's init registers) to WSL's interop server, which asks Windows to start the program
// as the Windows user: outside every Linux namespace, seccomp filter and Landlock ruleset of the
// process that ran it (Microsoft Learn, "Working across Windows and Linux file systems",
// "Interoperability"). The probe runs
//   /mnt/c/Windows/System32/cmd.exe /d /c "echo breakout>>%BREAKOUT_WIN_TARGET%"
// (create: `if exist ... exit /b 80 & echo breakout>...`), the target's Linux path handed over
// in BREAKOUT_WIN_TARGET through WSLENV with the /p flag, which translates it to its Windows
// spelling (\\wsl.localhost\<distro>\...), so no path crosses cmd.exe's quoting; at most 20 s,
// then killed. Report fields: route ("win-interop"), route_state ("started", "unavailable",
// "failed"), route_reason, interop_entry, cmd_exe, exit_status. "unavailable" only when the
// route is absent here: no enabled WSLInterop entry under /proc/sys/fs/binfmt_misc, or no
// cmd.exe at that path; the harness agrees only after its own check of the host
// (harness/host/interop_route.h) and with nothing changed.
// POSIX only (Linux).
#pragma once

#include <string>

#include "probes/common/report.h"

namespace breakout::probe {

inline constexpr char kInteropCmd[] = "/mnt/c/Windows/System32/cmd.exe";

// The ops --via win-interop takes: create and append.
bool win_interop_takes(const std::string& op);

void write_via_win_interop(ProbeReport& r, const std::string& op, const std::string& path);

}  // namespace breakout::probe
