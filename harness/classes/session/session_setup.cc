// session-setup: boot, then the boot's own host changes judged (setup_record.h).
//
// A change that widens what others may do outside the writable roots (a write grant, a
// removed deny, a new owner) is an escape of the setup, however cleanly shutdown undoes
// it; read/traverse grants and narrowing are shown. Control: the booted session runs an exec.
#include "harness/classes/session/judge.h"
#include "harness/classes/session/session_check.h"
#include "harness/attempt/setup_record.h"
#include "harness/core/error.h"

namespace breakout::oracles {

namespace {

class SessionSetup final : public SessionCheck {
 public:
  std::unique_ptr<SpawnSession> open(Scene& s) override {
    auto session = SessionCheck::open(s);
    setup_ = record_setup(*s.before, take_snapshot(s.tree.roots().tree), s.tree, s.request.resolved);
    return session;
  }

  LaunchResult exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to run the exec in");
    session_ = session;
    LaunchResult run = session->exec(s.request, s.limits);
    record_exec(s.rec, run);
    return run;
  }

  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o;
    shutdown_into(*session_, o.evidence);
    session_->close();
    s.rec.evidence["spawner"] = session_->evidence();
    o.evidence["setup"] = setup_.to_json();
    o.in_run_control = run.started && run.exited && run.exit_code == 0
                           ? ""
                           : "the booted session did not run its exec: " + describe_exec(run).dump();
    const auto widening = setup_.widening();
    o.effect = widening.empty() ? Effect::kNotHappened : Effect::kHappened;
    std::size_t outside = 0;
    for (const auto& c : setup_.changes) outside += c.outside_writable_roots;
    o.summary = !widening.empty() ? "boot widened access outside the writable roots: " + describe(*widening[0])
                : outside != 0    ? "boot changed " + std::to_string(outside) +
                                     " path(s) outside the writable roots, none widening: " + describe(setup_.changes[0])
                                  : "boot changed nothing outside the writable roots";
    return o;
  }

 private:
  SetupRecord setup_;
  SpawnSession* session_ = nullptr;  // run_attempt's, alive until after end()
};

}  // namespace

std::unique_ptr<Oracle> session_setup() { return make_oracle<SessionSetup>(); }

}  // namespace breakout::oracles
