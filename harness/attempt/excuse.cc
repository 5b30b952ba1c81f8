// The probe's "unavailable here" reports, and the three places the host lets them count.
#include "harness/attempt/excuse.h"

#include <algorithm>

#include "harness/core/text.h"

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

}  // namespace breakout
