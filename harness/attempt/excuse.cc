// The probe's "unavailable here" reports, the places the host lets them count, and the absent syscall ABI.
#include "harness/attempt/excuse.h"

#include <algorithm>
#include <csignal>

#include "harness/core/text.h"
#include "harness/model/probe_report.h"

namespace breakout {

std::optional<std::string> probe_says_unavailable(const LaunchResult& run, const std::string& what) {
  const nlohmann::json report = parse_probe_report(run.out);
  const std::string state = what + "_state", why = what + "_reason";
  if (!report.is_object() || !report.contains(state) || report[state] != "unavailable") return std::nullopt;
  const nlohmann::json& reason = report.contains(why) ? report[why] : nlohmann::json();
  return printable_excerpt(reason.is_string() ? reason.get<std::string>() : std::string("no reason"), 300);
}

// A Windows path form the probe could not apply here (probes/win/path_form.h: no 8.3
// alias, no volume GUID, a link kind the system lacks, a form Wine does not resolve).
Observation form_applies(Observation o, const Execution& ex, const LaunchResult& run) {
  if (o.effect != Effect::kNotHappened) return o;
  // Only an attempt that asked for a form may be excused by one: a probe that claims "unavailable" unasked
  // must not turn an overblocked control into a skip.
  const auto& args = ex.attempt->args;
  if (std::find(args.begin(), args.end(), "--form") == args.end()) return o;
  const auto reason = probe_says_unavailable(run, "form");
  if (!reason) return o;
  const nlohmann::json report = parse_probe_report(run.out);
  const nlohmann::json& form = report.contains("form") ? report["form"] : nlohmann::json();
  o.evidence["form_unavailable"] = true;
  o.not_applicable = "N/A: path form " + printable_excerpt(form.is_string() ? form.get<std::string>() : "?", 64) +
                     " unavailable here: " + *reason + "; nothing happened outside";
  return o;
}

// No WMI process provider, no Task Scheduler service, no desktop shell, or any failure under
// Wine: N/A only when no beat was ever written; a beater that beat is judged whatever the probe says.
std::optional<std::string> technique_unavailable(const Attempt& a, std::size_t beats, const LaunchResult& run) {
  if (beats != 0) return std::nullopt;
  // Only an attempt that asked for an indirect technique may be excused by it: a probe that claims
  // "unavailable" unasked must not hide a broken beater.
  const std::string asked = technique_of(a);
  if (asked != "wmi" && asked != "schtasks" && asked != "shellexecute") return std::nullopt;
  const auto reason = probe_says_unavailable(run, "technique");
  if (!reason) return std::nullopt;
  return "N/A: technique " + asked + " unavailable here: " + *reason + "; no heartbeat was ever written";
}

std::string arg_of(const Attempt& a, const std::string& option) {
  for (std::size_t i = 0; i + 1 < a.args.size(); ++i)
    if (a.args[i] == option) return a.args[i + 1];
  return "";
}

// No wsl.exe or no distribution (Windows), no WSLInterop binfmt entry or no cmd.exe (WSL): N/A
// only when the host itself has no such route, besides the probe's word and nothing changed.
Observation route_applies(Observation o, const Execution& ex, const LaunchResult& run,
                          const std::optional<std::string>& host_says) {
  if (o.effect != Effect::kNotHappened || !host_says) return o;
  const std::string asked = arg_of(*ex.attempt, "--via");
  if (asked != "wsl" && asked != "win-interop") return o;
  const auto reason = probe_says_unavailable(run, "route");
  if (!reason) return o;
  o.evidence["route_unavailable"] = true;
  o.not_applicable = "N/A: route " + asked + " unavailable here: " + *reason + "; the harness's own check: " +
                     *host_says + "; nothing happened outside";
  return o;
}

Observation launch_applies(Observation o, const Execution& ex, const LaunchResult& run) {
  if (o.effect != Effect::kNotHappened || arg_of(*ex.attempt, "--launch") != "wmi") return o;
  const auto reason = probe_says_unavailable(run, "launch");
  if (!reason) return o;
  o.evidence["launch_unavailable"] = true;
  o.not_applicable = "N/A: launch path wmi unavailable here: " + *reason + "; no listener received the nonce";
  return o;
}

namespace {

// The names a sandbox's answer is likely to carry; a number alone otherwise (the harness
// builds for Windows too, where most of these do not exist).
std::string signal_text(int sig) {
  const char* name = nullptr;
  switch (sig) {
#ifdef SIGSYS
    case SIGSYS: name = "SIGSYS"; break;
#endif
#ifdef SIGKILL
    case SIGKILL: name = "SIGKILL"; break;
#endif
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGABRT: name = "SIGABRT"; break;
    default: break;
  }
  return "signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : std::string());
}

}  // namespace

std::string probe_fate(const LaunchResult& run, const std::string& what) {
  const nlohmann::json report = parse_probe_report(run.out);
  if (report.is_object() && report.contains(what + "_state")) {
    const nlohmann::json& state = report[what + "_state"];
    const nlohmann::json& reason = report.contains(what + "_reason") ? report[what + "_reason"] : nlohmann::json();
    return "reported " + what + "_state " +
           printable_excerpt(state.is_string() ? state.get<std::string>() : state.dump(), 32) + ": " +
           printable_excerpt(reason.is_string() ? reason.get<std::string>() : std::string("no reason"), 300);
  }
  const std::string got = report.is_object() ? "a report without " + what + "_state" : "no report";
  if (!run.started) return "did not start (" + printable_excerpt(run.start_error, 200) + ")";
  if (run.timed_out) return "timed out, " + got;
  if (!run.exited) return "killed by " + signal_text(run.term_signal) + ", " + got;
  // A shell between the spawner and the probe reports a signal death as 128 + the signal.
  if (run.exit_code > 128 && run.exit_code < 128 + 65)
    return "exited " + std::to_string(run.exit_code) + " (128 + " + signal_text(run.exit_code - 128) + "), " + got;
  return "exited " + std::to_string(run.exit_code) + ", " + got;
}

// The host check is the harness's own (a forked child calling getpid through the ABI, outside
// every sandbox), so it needs no word from the probe: whatever answered inside, SIGSYS from a
// filter that checks the architecture, ENOSYS from the kernel or EPERM, said nothing about the
// sandbox, because no sandbox could have let this call through here. A control that cannot run
// is N/A for the same reason, never an overblock, and its denials are N/A beside it.
std::optional<std::string> abi_absent_here(Effect effect, const std::optional<std::string>& host_says,
                                           const std::string& fate) {
  if (effect != Effect::kNotHappened || !host_says) return std::nullopt;
  return "N/A: " + *host_says + " (the harness's own check), so the attempt cannot be tried here whatever the sandbox answers; the probe " +
         fate + "; nothing changed on the host";
}

}  // namespace breakout
