// Verdicts: what the outside evidence, the expectation and the controls add up to.
#pragma once

#include <optional>
#include <string>

#include "harness/model/expectation.h"

namespace breakout {

enum class Verdict {
  kPass,       // behaved as the policy says
  kEscape,     // denied by policy, and the host saw it happen
  kOverblock,  // allowed by policy, and it did not happen
  kBroken,     // an execution contract was violated
  kError,      // could not be judged (reason given), incl. a failed control
  kSkip,       // not applicable here (reason given); never counted as a pass
};
const char* to_string(Verdict v);
std::optional<Verdict> verdict_from(const std::string& s);

// What the outside oracle saw for one execution.
enum class Effect { kHappened, kNotHappened, kUnknown };

struct Judgement {
  Verdict verdict{};
  std::string reason;
};

// `effect` is what the host saw; for contracts kHappened means "the contract
// held". `in_run_control` is for attempts whose control is part of the same run
// (lifetime: the heartbeat must have started): nullopt when there is none,
// otherwise "" when it held, or the reason it failed.
Judgement judge(Expected expected, Effect effect, const std::string& evidence,
                const std::optional<std::string>& in_run_control);

// The same for a run the spawner refused (core/refusal.h: it says it ran nothing). The host
// still decides: an effect seen is judged as judge() would (an escape for a denial). Seen
// nothing, a denial passes ("refused: nothing happened outside"), a control is an overblock, a
// contract broken; no in-run control is asked for, since the probe did not run. `refusal` is
// the refusal's "code: message".
Judgement judge_refused(Expected expected, Effect effect, const std::string& evidence, const std::string& refusal);

// A denial that passed is only worth something if its controls passed:
// returns the judgement after applying the controls' verdict. `excused`: the control was
// skipped as a limitation the profile declares (a mechanism the sandbox refuses, model/
// mechanism.h) and the denial's in-run witness held (attempt/witness.h): it stands on that.
Judgement apply_control(const Judgement& deny, const std::string& control_id, Verdict control,
                        bool excused = false);

}  // namespace breakout
