// A probe's confinement read from the host (class recon): /proc on Linux, the process token on Windows — never the probe's word.
//
// The probe only holds still (`breakout-probe-recon --hold-ms`); the harness finds it and reads
// what the kernel says about it. Platform code: host/posix/process_view.cc, host/win/process_view.cc.
//
//   nlohmann::json views = read_probe_processes(box, "breakout-probe-recon");  // [] while none is alive
//   nlohmann::json host = read_own_process();                               // the harness, same shape
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/platform/process.h"

namespace breakout {

// At most this many processes are read per call (a sandbox could fork decoys).
inline constexpr std::size_t kMaxProbeViews = 8;

// The live processes of probe `image` (file name without ".exe") in `box`, each read from outside:
//  Linux: argv[0]'s file name is `image` and the command line holds the box's nonce (/proc/<pid>/cmdline);
//         {"pid", "status": {Uid, Gid, CapInh, CapPrm, CapEff, CapBnd, CapAmb, NoNewPrivs, Seccomp,
//         Seccomp_filters} as /proc/<pid>/status(5) writes them, "ns": {name: "net:[4026531840]"} from
//         the /proc/<pid>/ns/* links (namespaces(7)), "uid_map", "errors": [steps that failed]}.
//  Windows: the image of a process in the box's job (JobObjectBasicProcessIdList) is `image`.exe;
//         {"pid", "user", "integrity", "integrity_name", "restricted", "restricting_sids", "privileges",
//         "app_container", "session_id", "in_job", "errors"} through OpenProcess + OpenProcessToken.
// Never throws; a field that could not be read is left out and its step listed in "errors".
nlohmann::json read_probe_processes(const Containment& box, const std::string& image);

// The harness's own process in the same shape: the host's namespaces and token to compare with.
nlohmann::json read_own_process();

}  // namespace breakout
