// The default steps of an execution: boot (with its setup recorded), one exec, shutdown.
#include "harness/attempt/oracle.h"

#include "harness/attempt/setup_record.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/model/probe_report.h"

namespace breakout {

namespace {

constexpr std::size_t kExcerpt = 2048;  // bytes of each output channel kept in the record

}  // namespace

void record_run(AttemptRecord& rec, const std::vector<std::string>& command, const LaunchResult& run) {
  rec.spawner_argv.clear();
  for (const auto& a : command) rec.spawner_argv.push_back(printable_excerpt(a, 4096));
  rec.exit = {{"started", run.started},
              {"exited", run.exited},
              {"exit_code", run.exit_code},
              {"signal", run.term_signal},
              {"timed_out", run.timed_out},
              {"drain_timed_out", run.drain_timed_out},
              {"stdout_bytes", run.out_total},
              {"stderr_bytes", run.err_total},
              {"spawn_ms", std::chrono::duration<double, std::milli>(run.duration).count()}};
  if (!run.start_error.empty()) rec.exit["start_error"] = printable_excerpt(run.start_error, 1024);
  if (!run.box_join.empty()) rec.exit["box_join"] = run.box_join;  // clone3 or the cgroup.procs fallback
  rec.probe_report = parse_probe_report(run.out);
  rec.stdout_excerpt = printable_excerpt(run.out, kExcerpt);
  rec.stderr_excerpt = printable_excerpt(run.err, kExcerpt);
  if (run.refusal) rec.exit["refusal"] = {{"code", run.refusal->code}, {"message", run.refusal->message}};
}

// The window the probe is judged in starts after boot for spawners with sessions, whose boot
// may change the host (setup_record.h); command-line spawners' boot is a no-op, so their window
// stays the before-boot snapshot. What boot changed goes into the evidence, never into the verdict.
std::unique_ptr<SpawnSession> Oracle::open(Scene& s) {
  auto session = s.ctx.spawner->open(s.request, s.limits, &s.box, s.ctx.cancel);
  // A refused boot sets nothing up: the probe's window stays the before-boot snapshot, so
  // whatever the refused boot changed is judged (docs/drivers.md: "a refused boot changes nothing").
  if (session && session->boot_refusal()) return session;
  if (s.ctx.spawner->has_sessions()) {
    s.at_boot = take_snapshot(s.tree.roots().tree);
    const SetupRecord setup = record_setup(*s.before, *s.at_boot, s.tree, s.request.resolved);
    if (!setup.changes.empty()) s.rec.evidence["setup"] = setup.to_json();
  }
  return session;
}

LaunchResult Oracle::exec(Scene& s, SpawnSession* session) {
  check(session != nullptr, "no session to run the probe in");
  const LaunchResult run = session->exec(s.request, s.limits);
  record_run(s.rec, session->command_line(), run);  // display only
  check(!run.cancelled && !(s.ctx.cancel && s.ctx.cancel->load()), "interrupted");
  if (run.refusal) return run;  // a clear refusal is judged (judge_refused), not an error
  check(run.started, "the spawner did not start: " + run.start_error);
  return run;
}

// Shutdown is part of the contract: a spawner that cannot end its session cleanly turns a
// pass into an error (an escape stays an escape).
void Oracle::end(Scene& s, SpawnSession* session) {
  if (session == nullptr) return;
  try {
    session->shutdown();
  } catch (const std::exception& e) {
    s.rec.evidence["shutdown_error"] = printable_excerpt(e.what(), 1024);
    if (s.rec.verdict == Verdict::kPass) {
      s.rec.verdict = Verdict::kError;
      s.rec.reason = "the spawner failed to shut down the session: " + printable_excerpt(e.what(), 1024);
    }
  }
  if (nlohmann::json e = session->evidence(); !e.empty()) s.rec.evidence["spawner"] = std::move(e);
  // Let go of the driver as a caller would (stdin closed, it exits): what it leaves running after
  // that is its residue (spawner_residue.h), not the session it was still serving.
  session->close();
}

}  // namespace breakout
