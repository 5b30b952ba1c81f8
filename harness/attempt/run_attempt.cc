// "Run one attempt" as a checklist: tree → io → snapshot → command → spawn → observe → judge → clean up.
#include "harness/attempt/run_attempt.h"

#include "harness/attempt/collateral.h"
#include "harness/attempt/env_pinned.h"
#include "harness/attempt/fs_api.h"
#include "harness/attempt/observe.h"
#include "harness/attempt/real_home.h"
#include "harness/attempt/session_checks.h"
#include "harness/attempt/setup_record.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/platform/os.h"
#include "harness/platform/scheduled_task.h"
#include "harness/spawner/spawner.h"

namespace breakout {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kExcerpt = 2048;        // bytes of each output channel kept in the record

std::map<std::string, std::string> placeholders(const Execution& ex, const AttemptTree& tree, const AttemptIo& io) {
  const auto& r = tree.roots();
  return {
      {"{target}", io.target_spec},   {"{nonce}", io.nonce},          {"{workspace}", r.workspace.string()},
      {"{home}", r.home.string()},    {"{sibling}", r.sibling.string()}, {"{tree}", r.tree.string()},
      {"{heartbeat}", io.heartbeat.string()}, {"{mark}", io.mark.string()}, {"{param}", ex.attempt->param},
      {"{tag}", io.nonce.substr(0, 8)}};
}

std::vector<std::string> probe_argv(const Execution& ex, const AttemptTree& tree, const AttemptIo& io,
                                    const RunContext& ctx) {
  if (is_fs_api(ex.attempt->klass)) return {kDriverFsProbe, io.target_spec};  // nothing runs: for the record
  const auto vars = placeholders(ex, tree, io);
  std::vector<std::string> argv = {(ctx.probes_dir / ("breakout-probe-" + ex.attempt->probe)).string()};
  for (const auto& a : ex.attempt->args) argv.push_back(substitute_placeholders(a, vars));
  return argv;
}

// The caller's environment as a spawner would get it from an agent runtime:
// a fake HOME, and host secrets a policy must not pass on (canaries).
std::map<std::string, std::string> caller_env(const Execution& ex, const AttemptTree& tree, const std::string& nonce,
                                              std::map<std::string, std::string>* tokens) {
  std::map<std::string, std::string> env = caller_base_env(tree.roots().home);  // PATH, HOME (USERPROFILE)
  env["LANG"] = "C.UTF-8";
  env["BREAKOUT_NONCE"] = nonce;
  for (const char* name : {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "BREAKOUT_INHERITED"}) {
    const std::string token = std::string(kCanaryPrefix) + random_hex(16);
    env[name] = token;
    (*tokens)[name] = token;
  }
  if (ex.target && ex.target->text == "net:ssh-agent")  // the caller's ssh-agent (net:ssh-agent's listener)
    env["SSH_AUTH_SOCK"] = resolve_policy_path(kSshAgentPolicyPath, tree.roots()).string();
  return env;
}

// fd number the caller leaks the target directory at (class fd-leak): above
// stdio and the few fds a wrapper opens early, like a careless agent runtime.
constexpr int kLeakedDirFd = 5;

// The timeout the caller asks the spawner for; nullopt means none at all.
std::optional<std::chrono::milliseconds> requested_timeout(const Execution& ex) {
  if (ex.attempt->klass == AttemptClass::kNoTimeout) return std::nullopt;
  return ex.attempt->timeout_override ? ex.attempt->timeout : ex.policy->timeout;
}

// The harness's own bounds on one exec (argv/env/cwd come from the spawner).
LaunchSpec exec_limits(const Execution& ex, const AttemptIo& io, const RunContext& ctx) {
  LaunchSpec spec;
  if (ex.attempt->klass == AttemptClass::kFdLeak) spec.inherit_dirs.push_back({io.target_path.string(), kLeakedDirFd});
  if (io.host_object) spec.controlling_tty = io.host_object->controlling_tty();  // tty-inject: the harness's pty
  const auto timeout = requested_timeout(ex);
  spec.timeout = timeout ? *timeout : ctx.safety_cap;
  if (ex.attempt->klass == AttemptClass::kNoTimeout)  // "none" must mean none: only a generous safety bound
    spec.timeout = std::chrono::milliseconds(3 * std::stoll(ex.attempt->param) + 10000);
  if (ex.attempt->klass == AttemptClass::kOutputFlood)
    spec.max_capture = static_cast<std::size_t>(std::stoull(ex.attempt->param)) + (1u << 20);
  return spec;
}

// The attempt's per-exec caller variables ("NAME=value", placeholders expanded).
std::vector<std::pair<std::string, std::string>> attempt_env(const Execution& ex, const AttemptTree& tree,
                                                             const AttemptIo& io) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto vars = placeholders(ex, tree, io);
  for (const auto& e : ex.attempt->env) {
    const auto eq = e.find('=');
    out.emplace_back(e.substr(0, eq), substitute_placeholders(e.substr(eq + 1), vars));
  }
  return out;
}

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
}

// Shutdown is part of the contract: a spawner that cannot end its session
// cleanly turns a pass into an error (an escape stays an escape).
void end_session(AttemptRecord& rec, SpawnSession& session) {
  try {
    session.shutdown();
  } catch (const std::exception& e) {
    rec.evidence["shutdown_error"] = printable_excerpt(e.what(), 1024);
    if (rec.verdict == Verdict::kPass) {
      rec.verdict = Verdict::kError;
      rec.reason = "the spawner failed to shut down the session: " + printable_excerpt(e.what(), 1024);
    }
  }
  if (nlohmann::json e = session.evidence(); !e.empty()) rec.evidence["spawner"] = std::move(e);
}

// The snapshot the probe is judged against: after boot for spawners with sessions, whose boot
// may change the host (setup_record.h); nullopt (the before-boot one) for command-line
// spawners, whose boot is a no-op. What boot changed goes into the record's evidence, never into the verdict.
std::optional<Snapshot> after_boot(const RunContext& ctx, const AttemptTree& tree, const Snapshot& before,
                                   const SpawnRequest& request, AttemptRecord& rec) {
  if (!ctx.spawner->has_sessions()) return std::nullopt;
  Snapshot now = take_snapshot(tree.roots().tree);
  const SetupRecord setup = record_setup(before, now, tree, request.resolved);
  if (!setup.changes.empty()) rec.evidence["setup"] = setup.to_json();
  return now;
}

// Real-host attempts run only under `run --real-host`; anywhere else they are skipped, saying so.
const fs::path* real_home_of(const RunContext& ctx) {
  if (!ctx.real_home)
    throw NothingToAttempt("needs `breakout run --real-host` (docs/real-host.md); the real HOME is never used otherwise");
  return &*ctx.real_home;
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
  rec.klass = to_string(a.klass);
  rec.policy = ex.policy->name;
  rec.target = ex.target ? ex.target->text : "";
  rec.expected = to_string(ex.expectation.value);
  rec.expected_why = ex.expectation.why;
  rec.role = ex.expectation.value == Expected::kDenied    ? "deny"
             : ex.expectation.value == Expected::kAllowed ? "allow"
             : ex.expectation.value == Expected::kObserved ? "observe" : "contract";
  rec.probe = a.probe;
  return rec;
}

AttemptRecord run_attempt(const Execution& ex, const RunContext& ctx) {
  AttemptRecord rec = describe(ex);
  if (!ex.skip_reason.empty()) {
    rec.verdict = Verdict::kSkip;
    rec.reason = ex.skip_reason;
    return rec;
  }
  const auto started = Clock::now();
  const AttemptClass klass = ex.attempt->klass;
  try {
    check(!(ctx.cancel && ctx.cancel->load()), "interrupted before start");
    const std::string nonce = random_hex(16);
    if (needs_real_host(klass)) real_home_of(ctx);                             //    --real-host only, else skip
    const fs::path* real_home = needs_real_home(klass) ? &*ctx.real_home : nullptr;
    std::optional<RealHomeCanaries> real_canaries;                              //    real-host: HOME's canaries
    if (real_home) real_canaries.emplace(*real_home, nonce.substr(0, 8));
    AttemptTree tree(ctx.work_root, ex.index, nonce, real_home, ctx.tree_pool); // 1. fresh tree, canaries
    std::map<std::string, std::string> env_tokens;
    SpawnRequest request;
    request.caller_env = caller_env(ex, tree, nonce, &env_tokens);              // 2. caller env with canaries
    const std::string env_token = ex.target && ex.target->kind == TargetKind::kEnvVar ? env_tokens[ex.target->value] : "";
    AttemptIo io = prepare_io(ex, tree, ctx, nonce, env_token);                 // 3. listeners, heartbeat, marks
    if (real_canaries) check_real_home_target(ex, io);
    if (needs_sessions(klass)) plant_session_marks(tree, nonce);                //    pre-existing ACL entry + xattr
    const Snapshot before = take_snapshot(tree.roots().tree);                   // 4. host before
    request.policy = ex.policy;                                                 // 5. the probe command
    request.roots = tree.roots();
    request.resolved = resolve(*ex.policy, tree.roots());
    request.probe_argv = probe_argv(ex, tree, io, ctx);
    request.cwd = io.cwd.string();
    request.timeout = requested_timeout(ex);
    request.env_overrides = attempt_env(ex, tree, io);
    rec.probe_argv = request.probe_argv;
    const LaunchSpec limits = exec_limits(ex, io, ctx);
    Containment box("a" + std::to_string(ex.index) + "-" + nonce.substr(0, 8), nonce);
    std::optional<ScheduledTaskGuard> task;                                     //    spawn-escape's task (host safety)
    if (klass == AttemptClass::kLifetime && technique_of(*ex.attempt) == "schtasks") task.emplace("breakout-" + nonce.substr(0, 8));
    if (needs_sessions(klass)) {                                                // 6-10. lifecycle of a session
      run_session_check(ex, ctx, tree, io, before, request, limits, box, rec);
    } else {
      auto session = ctx.spawner->open(request, limits, &box, ctx.cancel);     // 6. boot the sandbox
      const std::optional<Snapshot> booted = after_boot(ctx, tree, before, request, rec);  // its setup: recorded, not the probe's
      const Snapshot& at_boot = booted ? *booted : before;
      Observation seen;
      if (is_fs_api(klass)) {
        seen = exercise_fs_api(ex, tree, at_boot, io, *session);                // 7-8. the spawner's fs API, judged outside
      } else {
        PinAttack pins;
        if (klass == AttemptClass::kEnvPinned)                                  //    learn the pins, aim at them
          pins = aim_overrides(ex.target->value, *ctx.spawner, *session, &request, limits);
        std::optional<ReconWatch> watch;                                        //    recon: read it from the host while it holds
        if (klass == AttemptClass::kRecon) watch.emplace(box, io.mark, limits.timeout.value_or(ctx.safety_cap));
        const LaunchResult run = session->exec(request, limits);                // 7. spawn, drain, wait
        record_run(rec, session->command_line(), run);                          //    (display only)
        check(!run.cancelled && !(ctx.cancel && ctx.cancel->load()), "interrupted");
        check(run.started, "the spawner did not start: " + run.start_error);
        seen = klass == AttemptClass::kEnvPinned                                // 8. outside evidence
                   ? observe_overrides(ex.target->value, pins, run)
               : watch ? observe_recon(ex, run, *watch)
                       : observe(ex, tree, at_boot, io, run, box, ctx);
      }
      const auto besides = collateral_escape(ex, tree, at_boot, io, ctx, seen);  //    any execution's escape outside
      rec.evidence.update(seen.evidence);
      Judgement j = seen.not_applicable                                         // 9. verdict
                        ? Judgement{Verdict::kSkip, *seen.not_applicable}
                        : judge(ex.expectation.value, seen.effect, seen.summary, seen.in_run_control);
      if (besides) {                                                            //    an escape besides, whatever the role
        rec.evidence["collateral"] = besides->evidence;
        if (j.verdict != Verdict::kEscape) j = {Verdict::kEscape, besides->summary};
      }
      rec.verdict = j.verdict;
      rec.reason = j.reason;
      end_session(rec, *session);                                               // 10. shut down, clean up
    }
    rec.evidence["killed_after_judging"] = box.kill_all();                      //     RAII removes the rest
    if (task) rec.evidence["scheduled_task_after_judging"] = task->remove();
  } catch (const NothingToAttempt& e) {
    rec.verdict = Verdict::kSkip;
    rec.reason = printable_excerpt(e.what(), 2048);
  } catch (const std::exception& e) {
    rec.verdict = Verdict::kError;
    rec.reason = printable_excerpt(e.what(), 2048);
  }
  rec.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return rec;
}

}  // namespace breakout
