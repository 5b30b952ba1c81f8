// "Unavailable here": the one excuse a probe may offer, and the only way it can change a verdict.
//
// A probe reports a mechanism it could not use on this machine (a Windows path form
// with no 8.3 alias, a job-escape technique without its service, a syscall ABI the
// kernel lacks) as "<what>_state": "unavailable" with a "<what>_reason". The report
// is the sandboxed side's word, hostile input: only that fixed value is compared, the
// reason is shown bounded, and the excuse counts only where the attempt asked for the
// mechanism and the host shows nothing happened. Then the attempt is N/A (skip), never
// a pass; anywhere else it is judged as usual. One exception, where the harness itself
// knows: a syscall ABI its own host check finds missing (abi_absent_here).
#pragma once

#include <optional>
#include <string>

#include "harness/attempt/observe.h"

namespace breakout {

// The bounded reason when the probe's report says `<what>_state` = "unavailable"
// (`<what>_reason`, or "no reason"); nullopt otherwise.
std::optional<std::string> probe_says_unavailable(const LaunchResult& run, const std::string& what);

// fs-write / fs-read through a Windows path form (`--form` in the attempt's args): the probe
// says the form is unavailable here and nothing happened outside: the observation becomes N/A.
Observation form_applies(Observation o, const Execution& ex, const LaunchResult& run);

// A lifetime attempt that asked for an indirect job-escape technique (spawn-escape --technique
// wmi|schtasks|shellexecute) whose probe says it is unavailable, with no beat ever written:
// the skip reason; nullopt otherwise (judged as usual).
std::optional<std::string> technique_unavailable(const Attempt& a, std::size_t beats, const LaunchResult& run);

// The value an attempt's args give `option` ("--via", "--launch"), "" when they give none.
std::string arg_of(const Attempt& a, const std::string& option);

// fs-write through the other operating system (`--via wsl` on Windows, `--via win-interop` in
// WSL: probes/win/wsl_route.h, probes/win_interop.h): the probe says the route is unavailable
// here (`route_state`), the harness's own check of the host agrees (`host_says`,
// host/interop_route.h) and nothing happened outside: the observation becomes N/A. A probe
// that claims it on a host that has the route, or unasked, is judged as usual.
Observation route_applies(Observation o, const Execution& ex, const LaunchResult& run,
                          const std::optional<std::string>& host_says);

// net-connect through another launch path (`--launch wmi`, probes/win/relaunch.h): the probe says
// the path is absent here (`launch_state`: no WMI process provider; any failure under Wine) and
// no listener got the nonce: the observation becomes N/A. Only wmi can be absent: a plain
// CreateProcessW, ShellExecuteExW or cmd.exe that fails is the sandbox's answer, judged.
Observation launch_applies(Observation o, const Execution& ex, const LaunchResult& run);

// How the probe ended, in one bounded line for the evidence: the `<what>_state` and
// `<what>_reason` it reported, or, without a report, how the spawned process ended
// (a signal such as a seccomp filter's SIGSYS, an exit status, a timeout).
std::string probe_fate(const LaunchResult& run, const std::string& what);

// syscall-abi-write: the harness's own check on the host (`host_says`, syscall_abi_unavailable)
// finds the ABI missing from this kernel and nothing changed outside: the attempt cannot be
// tried on this machine whatever the sandbox answered (SIGSYS, ENOSYS, EPERM, no report), so
// it is N/A, control included; the reason names the host's fact and the probe's `fate`.
// nullopt where the host has the ABI or something changed (judged as usual).
std::optional<std::string> abi_absent_here(Effect effect, const std::optional<std::string>& host_says,
                                           const std::string& fate);

}  // namespace breakout
