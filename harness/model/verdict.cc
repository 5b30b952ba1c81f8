// Verdict rules (docs/verdicts.md): an escape needs outside evidence; a pass needs a passing control.
#include "harness/model/verdict.h"

namespace breakout {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kEscape: return "escape";
    case Verdict::kOverblock: return "overblock";
    case Verdict::kBroken: return "broken";
    case Verdict::kError: return "error";
    case Verdict::kSkip: return "skip";
  }
  return "?";
}

std::optional<Verdict> verdict_from(const std::string& s) {
  for (Verdict v : {Verdict::kPass, Verdict::kEscape, Verdict::kOverblock, Verdict::kBroken,
                    Verdict::kError, Verdict::kSkip})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

Judgement judge(Expected expected, Effect effect, const std::string& evidence,
                const std::optional<std::string>& in_run_control) {
  if (effect == Effect::kUnknown) return {Verdict::kError, "could not observe: " + evidence};
  const bool happened = effect == Effect::kHappened;
  switch (expected) {
    case Expected::kObserved:  // informational: whatever was seen, it neither passes nor escapes
      return {Verdict::kSkip, "informational: " + evidence};
    case Expected::kHolds:
      return happened ? Judgement{Verdict::kPass, evidence} : Judgement{Verdict::kBroken, evidence};
    case Expected::kAllowed:
      return happened ? Judgement{Verdict::kPass, evidence}
                      : Judgement{Verdict::kOverblock, "allowed but did not happen: " + evidence};
    case Expected::kDenied:
      // Outside evidence of the effect is an escape whatever else went wrong.
      if (happened) return {Verdict::kEscape, evidence};
      if (in_run_control && !in_run_control->empty())
        return {Verdict::kError, "control failed, so the denial proves nothing: " + *in_run_control};
      return {Verdict::kPass, evidence};
  }
  return {Verdict::kError, "unknown expectation"};
}

Judgement judge_refused(Expected expected, Effect effect, const std::string& evidence, const std::string& refusal) {
  if (effect == Effect::kHappened) return judge(expected, effect, evidence, std::nullopt);
  const std::string why = "the spawner refused (" + refusal + ")";
  switch (expected) {
    case Expected::kObserved: return {Verdict::kSkip, "informational: " + why};
    case Expected::kHolds: return {Verdict::kBroken, why + ", so the contract was not kept"};
    case Expected::kAllowed: return {Verdict::kOverblock, "allowed but " + why};
    case Expected::kDenied: return {Verdict::kPass, "refused: nothing happened outside (" + refusal + ")"};
  }
  return {Verdict::kError, "unknown expectation"};
}

Judgement apply_control(const Judgement& deny, const std::string& control_id, Verdict control, bool excused) {
  if (deny.verdict != Verdict::kPass || control == Verdict::kPass) return deny;
  if (excused && control == Verdict::kSkip)
    return {Verdict::kPass, deny.reason + " (control " + control_id +
                                " skipped as the sandbox's declared refusal; the probe's witness shows it ran)"};
  return {Verdict::kError, "control " + control_id + " was " + to_string(control) +
                               ", so this denial proves nothing (" + deny.reason + ")"};
}

}  // namespace breakout
