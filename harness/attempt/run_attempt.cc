// "Run one attempt" as a checklist: tree → io → snapshot → command → spawn → observe → judge → clean up.
#include "harness/attempt/run_attempt.h"

#include "harness/attempt/observe.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/spawner/spawner.h"

namespace breakout {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kExcerpt = 2048;        // bytes of each output channel kept in the record
constexpr std::size_t kReportSearch = 65536;  // the probe's report line is looked for in this tail

std::vector<std::string> probe_argv(const Execution& ex, const AttemptTree& tree, const AttemptIo& io,
                                    const RunContext& ctx) {
  const auto& r = tree.roots();
  const std::map<std::string, std::string> vars = {
      {"{target}", io.target_spec},   {"{nonce}", io.nonce},          {"{workspace}", r.workspace.string()},
      {"{home}", r.home.string()},    {"{sibling}", r.sibling.string()}, {"{tree}", r.tree.string()},
      {"{heartbeat}", io.heartbeat.string()}, {"{mark}", io.mark.string()}, {"{param}", ex.attempt->param},
      {"{tag}", io.nonce.substr(0, 8)}};
  std::vector<std::string> argv = {(ctx.probes_dir / ("breakout-probe-" + ex.attempt->probe)).string()};
  for (const auto& a : ex.attempt->args) argv.push_back(substitute_placeholders(a, vars));
  return argv;
}

// The caller's environment as a spawner would get it from an agent runtime:
// a fake HOME, and host secrets a policy must not pass on (canaries).
std::map<std::string, std::string> caller_env(const AttemptTree& tree, const std::string& nonce,
                                              std::map<std::string, std::string>* tokens) {
  std::map<std::string, std::string> env = {
      {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
      {"HOME", tree.roots().home.string()},
      {"LANG", "C.UTF-8"},
      {"BREAKOUT_NONCE", nonce}};
  for (const char* name : {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "BREAKOUT_INHERITED"}) {
    const std::string token = std::string(kCanaryPrefix) + random_hex(16);
    env[name] = token;
    (*tokens)[name] = token;
  }
  return env;
}

// fd number the caller leaks the target directory at (class fd-leak): above
// stdio and the few fds a wrapper opens early, like a careless agent runtime.
constexpr int kLeakedDirFd = 5;

LaunchSpec launch_spec(const SpawnPlan& plan, const Execution& ex, const AttemptIo& io, const RunContext& ctx) {
  LaunchSpec spec;
  if (ex.attempt->klass == AttemptClass::kFdLeak) spec.inherit_dirs.push_back({io.target_path.string(), kLeakedDirFd});
  if (io.host_object) spec.controlling_tty = io.host_object->controlling_tty();  // tty-inject: the harness's pty
  spec.argv = plan.argv;
  spec.env = plan.env;
  spec.cwd = plan.cwd;
  const auto& timeout = ex.attempt->timeout_override ? ex.attempt->timeout : ex.policy->timeout;
  spec.timeout = timeout ? *timeout : ctx.safety_cap;
  if (ex.attempt->klass == AttemptClass::kNoTimeout)  // "none" must mean none: only a generous safety bound
    spec.timeout = std::chrono::milliseconds(3 * std::stoll(ex.attempt->param) + 10000);
  if (ex.attempt->klass == AttemptClass::kOutputFlood)
    spec.max_capture = static_cast<std::size_t>(std::stoull(ex.attempt->param)) + (1u << 20);
  return spec;
}

nlohmann::json probe_report(const std::string& out) {
  const std::string_view tail =
      out.size() > kReportSearch ? std::string_view(out).substr(out.size() - kReportSearch) : std::string_view(out);
  const std::size_t at = tail.rfind("BREAKOUT-REPORT ");
  if (at == std::string_view::npos) return nullptr;
  std::string_view line = tail.substr(at + 16);
  line = line.substr(0, line.find('\n'));
  try {
    return nlohmann::json::parse(line);
  } catch (const std::exception&) {
    return {{"unparsed", printable_excerpt(line, 1024)}};
  }
}

void record_run(AttemptRecord& rec, const SpawnPlan& plan, const LaunchResult& run) {
  rec.spawner_argv.clear();
  for (const auto& a : plan.argv) rec.spawner_argv.push_back(printable_excerpt(a, 4096));
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
  rec.probe_report = probe_report(run.out);
  rec.stdout_excerpt = printable_excerpt(run.out, kExcerpt);
  rec.stderr_excerpt = printable_excerpt(run.err, kExcerpt);
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
  rec.role = ex.expectation.value == Expected::kDenied ? "deny"
             : ex.expectation.value == Expected::kAllowed ? "allow" : "contract";
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
  try {
    check(!(ctx.cancel && ctx.cancel->load()), "interrupted before start");
    const std::string nonce = random_hex(16);
    AttemptTree tree(ctx.work_root, ex.index, nonce);                           // 1. fresh tree, canaries
    std::map<std::string, std::string> env_tokens;
    SpawnRequest request;
    request.caller_env = caller_env(tree, nonce, &env_tokens);                  // 2. caller env with canaries
    const std::string env_token = ex.target && ex.target->kind == TargetKind::kEnvVar ? env_tokens[ex.target->value] : "";
    AttemptIo io = prepare_io(ex, tree, ctx, nonce, env_token);                 // 3. listeners, heartbeat, marks
    const Snapshot before = take_snapshot(tree.roots().tree);                   // 4. host before
    request.policy = ex.policy;                                                 // 5. the probe command
    request.roots = tree.roots();
    request.resolved = resolve(*ex.policy, tree.roots());
    request.probe_argv = probe_argv(ex, tree, io, ctx);
    request.cwd = io.cwd.string();
    rec.probe_argv = request.probe_argv;
    const SpawnPlan plan = ctx.spawner->plan(request);                          // 6. the spawner's command
    Containment box("a" + std::to_string(ex.index) + "-" + nonce.substr(0, 8), nonce);
    const LaunchResult run = run_process(launch_spec(plan, ex, io, ctx), &box, ctx.cancel);  // 7. spawn, drain, wait
    record_run(rec, plan, run);                                                 //    (display only)
    check(!run.cancelled, "interrupted");
    check(run.started, "the spawner did not start: " + run.start_error);
    const Observation seen = observe(ex, tree, before, io, run, box, ctx);      // 8. outside evidence
    rec.evidence = seen.evidence;
    const Judgement j = judge(ex.expectation.value, seen.effect, seen.summary, seen.in_run_control);  // 9. verdict
    rec.verdict = j.verdict;
    rec.reason = j.reason;
    rec.evidence["killed_after_judging"] = box.kill_all();                      // 10. clean up; RAII removes the rest
  } catch (const std::exception& e) {
    rec.verdict = Verdict::kError;
    rec.reason = printable_excerpt(e.what(), 2048);
  }
  rec.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return rec;
}

}  // namespace breakout
