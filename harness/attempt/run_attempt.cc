// "Run one attempt" as a checklist: one call per step; what differs per class is its oracle (oracle.h).
#include "harness/attempt/run_attempt.h"

#include "harness/attempt/collateral.h"
#include "harness/attempt/observe.h"
#include "harness/attempt/oracle.h"
#include "harness/attempt/scene.h"
#include "harness/attempt/skip.h"
#include "harness/attempt/witness.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/host/spawner_residue.h"
#include "harness/model/probe_report.h"

namespace breakout {

using Clock = std::chrono::steady_clock;

namespace {

// An allowed execution the harness killed at the policy's timeout before the probe said a word:
// the spawner did not run the probe to its end in time (seen with srt, whose Node start-up and
// dependency checks took over 20 s on two cores running 16 busy loops). Nothing shows the sandbox
// blocked anything, so it is not an overblock; it was not judged, an error with the reason (a
// denial paired with it is then an error too, never a pass).
bool timed_out_unheard(const LaunchResult& run) {
  return run.timed_out && !parse_probe_report(run.out).is_object();
}

Judgement not_judged_timeout(const LaunchResult& run, const Judgement& j) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(run.duration).count();
  return {Verdict::kError, "not judged: killed at the policy's timeout after " + std::to_string(ms) +
                               " ms before the probe reported anything (the spawner did not run it to its end in "
                               "time; on a loaded machine, fewer --jobs); " + j.reason};
}

// The class oracle's observation against the expectation, and any escape besides it
// (collateral.h): that one wins over a pass, whatever the execution's role.
void judge_into(Scene& s, const Oracle& oracle, const Observation& seen, const LaunchResult& run) {
  const auto besides = oracle.collateral() ? collateral_escape(s.ex, s.tree, s.request.resolved, s.window(), s.io, s.ctx, seen) : std::nullopt;
  s.rec.evidence.update(seen.evidence);
  std::optional<std::string> in_run_control = seen.in_run_control;
  if (!s.io.witness.empty()) {  // the denial's stand-in for a control the spawner refuses (witness.h)
    const WitnessSeen w = look_for_witness(s.io.witness);
    s.rec.evidence["witness"] = w.evidence;
    s.rec.witnessed = w.present;
    if (!w.present && (!in_run_control || in_run_control->empty())) in_run_control = w.problem;
  }
  Judgement j;
  if (run.refusal) {  // the spawner's clear refusal: the host decides what it is worth (judge_refused)
    s.rec.evidence["refusal"] = {{"code", run.refusal->code}, {"message", run.refusal->message}};
    j = judge_refused(s.ex.expectation.value, seen.effect, seen.summary, run.refusal->text());
  } else {
    j = seen.not_applicable ? Judgement{Verdict::kSkip, *seen.not_applicable}
                            : judge(s.ex.expectation.value, seen.effect, seen.summary, in_run_control);
  }
  // An execution on a mechanism the spawner declares refused (plan.cc, Execution::refused): not
  // happening, not being seen at all, or being refused is that limitation, never an overblock or
  // an error. What the host saw happen still counts.
  const bool unseen = j.verdict == Verdict::kError && seen.effect == Effect::kUnknown;
  const bool refused_here = run.refusal && seen.effect != Effect::kHappened && j.verdict != Verdict::kEscape;
  if (!s.ex.refused.empty() && (j.verdict == Verdict::kOverblock || unseen || refused_here)) {
    s.rec.refused = s.ex.refused;
    j = {Verdict::kSkip, s.ex.refused + " (declared; " + j.reason + ")"};
  }
  if (j.verdict == Verdict::kOverblock && timed_out_unheard(run)) j = not_judged_timeout(run, j);
  if (besides) {
    s.rec.evidence["collateral"] = besides->evidence;
    if (j.verdict != Verdict::kEscape) j = {Verdict::kEscape, besides->summary};
  }
  s.rec.verdict = j.verdict;
  s.rec.reason = j.reason;
}

// The steps in order. A step that finds the attempt does not apply here (skip.h) ends it
// with its Skip: what was built is removed on the way out, as for a failure (RAII).
std::optional<Skip> run_steps(const Execution& ex, const RunContext& ctx, AttemptRecord& rec) {
  check(!(ctx.cancel && ctx.cancel->load()), "interrupted before start");
  if (auto skip = scene_unavailable(ex, ctx)) return skip;                  // 1. --real-host where needed,
  Scene scene(ex, ctx, rec);                                                //    tree, caller env,
  ResidueEnrollment residue(ctx.residue, scene.box, ex.id);                 //    the spawner's own leftovers
  if (auto skip = scene.aim()) return skip;                                 //    io at the target
  const auto oracle = make_oracle_for(ex.attempt->klass);                   //    the class's oracle (oracle_table.cc)
  if (auto skip = oracle->prepare(scene)) return skip;                      // 2. what the class needs besides
  scene.compose();                                                          // 3. probe command, the exec's bounds
  scene.snapshot_before();                                                  // 4. host before
  const auto session = oracle->open(scene);                                 // 5. boot (its own setup recorded)
  if (auto skip = oracle->before_exec(scene, session.get())) return skip;   // 6. pins, watches
  const LaunchResult run = oracle->exec(scene, session.get());              // 7. spawn, drain, wait
  const Observation seen = oracle->observe(scene, run);                     // 8. outside evidence
  judge_into(scene, *oracle, seen, run);                                    // 9. verdict, and escapes besides
  oracle->end(scene, session.get());                                        // 10. shut down
  residue.spawn_over();                                                     //     what it left running
  rec.evidence["killed_after_judging"] = scene.box.kill_all();              // 11. clean up (RAII removes the rest)
  oracle->clean_up(scene);
  return std::nullopt;
}

}  // namespace

AttemptRecord describe(const Execution& ex) {
  AttemptRecord rec;
  const Attempt& a = *ex.attempt;
  rec.id = ex.id;
  rec.group = ex.group;
  rec.attempt_id = a.id;
  rec.title = a.title;
  rec.description = a.description;
  rec.reference = a.reference;
  rec.source_file = a.file;
  rec.source_line = a.line;
  rec.klass = to_string(a.klass);
  rec.policy = ex.policy->name;
  rec.target = ex.target ? ex.target->text : "";
  rec.expected = to_string(ex.expectation.value);
  rec.expected_why = ex.expectation.why;
  rec.role = role_of(ex.expectation.value);
  rec.probe = a.probe;
  return rec;
}

AttemptRecord run_attempt(const Execution& ex, const RunContext& ctx) {
  AttemptRecord rec = describe(ex);
  if (!ex.skip_reason.empty()) {  // the planner's: nothing was built
    rec.verdict = Verdict::kSkip;
    rec.reason = ex.skip_reason;
    return rec;
  }
  const auto started = Clock::now();
  try {
    if (const auto skip = run_steps(ex, ctx, rec)) {
      rec.verdict = Verdict::kSkip;
      rec.reason = printable_excerpt(skip->reason, 2048);
    }
  } catch (const std::exception& e) {
    rec.verdict = Verdict::kError;
    rec.reason = printable_excerpt(e.what(), 2048);
  }
  rec.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return rec;
}

}  // namespace breakout
