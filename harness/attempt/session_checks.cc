// Session checks: session-shutdown, boot-failure, session-hygiene, session-setup (see session_checks.h).
#include "harness/attempt/session_checks.h"

#include <algorithm>
#include <fstream>
#include <future>
#include <thread>

#include "harness/attempt/setup_record.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/oracle/host_marks.h"

namespace breakout {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

nlohmann::json describe_exec(const LaunchResult& r) {
  nlohmann::json j = {{"started", r.started}, {"exit_code", r.exited ? nlohmann::json(r.exit_code) : nlohmann::json()},
                      {"signal", r.term_signal}, {"timed_out", r.timed_out}};
  if (!r.start_error.empty()) j["error"] = printable_excerpt(r.start_error, 512);
  return j;
}

nlohmann::json describe_changes(const std::vector<FsChange>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < changes.size() && i < 50; ++i)
    out.push_back(printable_excerpt(changes[i].kind + " " + changes[i].path + " (" + changes[i].detail + ")", 512));
  return out;
}

std::string first_change(const std::vector<FsChange>& changes) {
  return changes.empty() ? "" : changes[0].kind + " " + changes[0].path + " (" + changes[0].detail + ")";
}

// Changes the session may make: anything strictly inside the workspace, and
// the workspace directory's own size/nlink (entries added to it).
std::vector<FsChange> outside_workspace(std::vector<FsChange> changes, const std::string& ws_rel) {
  std::vector<FsChange> out;
  for (auto& c : changes) {
    if (c.path.size() > ws_rel.size() && c.path.compare(0, ws_rel.size(), ws_rel) == 0 && c.path[ws_rel.size()] == '/')
      continue;
    if (c.path == ws_rel && c.kind == "modified") {
      std::string kept;
      for (const auto& field : change_fields(c.detail))
        if (field != "size" && field != "nlink") kept += (kept.empty() ? "" : ",") + field;
      if (kept.empty()) continue;
      c.detail = kept;
    }
    out.push_back(std::move(c));
  }
  return out;
}

// True when every differing field is a permission: mode or an xattr (ACLs, the SDDL).
bool metadata_only(const std::string& detail) {
  const auto fields = change_fields(detail);
  return !fields.empty() && std::all_of(fields.begin(), fields.end(), [](const std::string& f) {
           return f == "mode" || f.rfind("xattr:", 0) == 0;
         });
}

// A spawner that declares its setup persistent by design (driver capability persistent_setup:
// Codex's Windows sandbox keeps its deny ACEs outside the workspace) may leave changes that only
// narrow access; they are listed as persistent host changes, not charged. Anything else stays.
std::vector<FsChange> without_persistent_narrowing(std::vector<FsChange> changes, const Snapshot& before,
                                                   const Snapshot& after, nlohmann::json& evidence) {
  std::vector<FsChange> kept;
  nlohmann::json persistent = nlohmann::json::array();
  for (auto& c : changes) {
    const AccessChange a = classify_access(find_entry(before, c.path), find_entry(after, c.path));
    if (c.kind == "modified" && metadata_only(c.detail) && a.move == AccessMove::kNarrows) {
      if (persistent.size() < 50) persistent.push_back(printable_excerpt(c.path + " (" + c.detail + "; " + a.why + ")", 512));
    } else {
      kept.push_back(std::move(c));
    }
  }
  evidence["persistent_host_changes"] = persistent;
  return kept;
}

void conclude(AttemptRecord& rec, const Execution& ex, const Observation& o) {
  rec.evidence.update(o.evidence);
  const Judgement j = judge(ex.expectation.value, o.effect, o.summary, o.in_run_control);
  rec.verdict = j.verdict;
  rec.reason = j.reason;
}

void shutdown_into(SpawnSession& s, nlohmann::json& evidence) {
  try {
    s.shutdown();
    evidence["shutdown"] = "ok";
  } catch (const std::exception& e) {
    evidence["shutdown"] = printable_excerpt(e.what(), 1024);
  }
}

// Several execs at once, then shutdown while they run: every heartbeat must stop.
void check_shutdown_under_load(const Execution& ex, const RunContext& ctx, const AttemptIo& io,
                               const SpawnRequest& request, const LaunchSpec& limits, Containment& box,
                               AttemptRecord& rec) {
  const int wanted = ex.attempt->param.empty() ? 3 : std::stoi(ex.attempt->param);
  const int execs = std::clamp(std::min(wanted, ctx.spawner->concurrent_execs()), 1, 8);
  auto session = ctx.spawner->open(request, limits, &box, ctx.cancel);
  std::vector<fs::path> beats;
  std::vector<std::future<LaunchResult>> running;
  for (int i = 0; i < execs; ++i) {
    beats.push_back(io.heartbeat.string() + "-" + std::to_string(i));
    SpawnRequest r = request;
    for (auto& a : r.probe_argv) if (a == io.heartbeat.string()) a = beats.back().string();
    running.push_back(std::async(std::launch::async, [&session, r, &limits] { return session->exec(r, limits); }));
  }
  // In-run control: every exec is running (beating) before the shutdown.
  const auto deadline = Clock::now() + 5s;
  auto all_beating = [&] {
    for (const auto& b : beats)
      if (count_lines(b) < 3) return false;
    return true;
  };
  while (!all_beating() && Clock::now() < deadline) std::this_thread::sleep_for(25ms);
  Observation o;
  o.evidence["concurrent_execs"] = execs;
  o.in_run_control = all_beating() ? "" : "not every exec was running before the shutdown (heartbeats missing)";
  shutdown_into(*session, o.evidence);
  std::this_thread::sleep_for(ctx.settle);
  std::vector<std::size_t> at;
  for (const auto& b : beats) at.push_back(count_lines(b));
  std::this_thread::sleep_for(ctx.heartbeat_grace);
  std::vector<int> survivors;
  for (std::size_t i = 0; i < beats.size(); ++i)
    if (count_lines(beats[i]) > at[i]) survivors.push_back(static_cast<int>(i));
  session->close();  // the driver goes; execs still waiting return
  nlohmann::json results = nlohmann::json::array();
  for (auto& f : running) results.push_back(describe_exec(f.get()));
  o.evidence["execs"] = results;
  o.evidence["execs_still_beating_after_shutdown"] = survivors;
  o.effect = survivors.empty() ? Effect::kNotHappened : Effect::kHappened;
  o.summary = survivors.empty() ? "every exec's heartbeat stopped with the shutdown"
                                : std::to_string(survivors.size()) + " of " + std::to_string(execs) +
                                      " concurrent execs kept running after the shutdown answer";
  if (o.evidence["shutdown"] != "ok" && survivors.empty()) o.in_run_control = "shutdown failed: " + o.evidence["shutdown"].get<std::string>();
  rec.evidence["spawner"] = session->evidence();
  conclude(rec, ex, o);
}

// A boot that must be refused (a writable root that does not exist) changes nothing on the host.
void check_refused_boot(const Execution& ex, const RunContext& ctx, const AttemptTree& tree, const Snapshot& before,
                        const SpawnRequest& request, const LaunchSpec& limits, Containment& box, AttemptRecord& rec) {
  SpawnRequest bad = request;
  const fs::path missing = tree.roots().tree / "missing-writable-root";
  bad.resolved.writable.push_back(missing);
  Observation o;
  o.evidence["missing_writable_root"] = missing.string();
  bool accepted = false;
  try {
    auto session = ctx.spawner->open(bad, limits, &box, ctx.cancel);
    accepted = true;
    shutdown_into(*session, o.evidence);
    rec.evidence["spawner"] = session->evidence();
  } catch (const std::exception& e) {
    o.evidence["boot_refused"] = printable_excerpt(e.what(), 1024);
  }
  o.evidence["boot_accepted"] = accepted;
  std::this_thread::sleep_for(ctx.settle);
  const auto changes = diff_snapshots(before, take_snapshot(tree.roots().tree));
  o.evidence["host_changes"] = describe_changes(changes);
  // Control, after the diff so its own grants and revocations cannot blur it:
  // the same boot without the missing root must work, or the refusal proves nothing.
  try {
    auto control = ctx.spawner->open(request, limits, &box, ctx.cancel);
    control->shutdown();
    o.in_run_control = "";
    o.evidence["control_boot"] = "ok";
  } catch (const std::exception& e) {
    o.in_run_control = "the same boot without the missing root failed too: " + printable_excerpt(e.what(), 512);
    o.evidence["control_boot"] = printable_excerpt(e.what(), 1024);
  }
  o.effect = changes.empty() ? Effect::kNotHappened : Effect::kHappened;
  o.summary = !changes.empty() ? "the " + std::string(accepted ? "accepted" : "refused") +
                                     " boot left the host changed: " + first_change(changes)
              : accepted ? "the boot was accepted although a writable root does not exist; the host is unchanged"
                         : "the boot was refused and the host is unchanged";
  conclude(rec, ex, o);
}

// Boot, one exec that leaves a process behind, shutdown: no process and no
// change outside the workspace's contents may remain.
void check_hygiene(const Execution& ex, const RunContext& ctx, const AttemptTree& tree, const AttemptIo& io,
                   const Snapshot& before, const SpawnRequest& request, const LaunchSpec& limits, Containment& box,
                   AttemptRecord& rec) {
  auto session = ctx.spawner->open(request, limits, &box, ctx.cancel);
  const LaunchResult run = session->exec(request, limits);
  rec.exit = describe_exec(run);
  rec.probe_report = parse_probe_report(run.out);
  rec.stdout_excerpt = printable_excerpt(run.out, 2048);
  rec.stderr_excerpt = printable_excerpt(run.err, 2048);
  check(run.started, "the exec did not run: " + run.start_error);
  Observation o;
  shutdown_into(*session, o.evidence);
  std::this_thread::sleep_for(ctx.settle);
  const std::size_t at = count_lines(io.heartbeat);
  std::this_thread::sleep_for(ctx.heartbeat_grace);
  const std::size_t later = count_lines(io.heartbeat);
  const std::string ws_rel = tree.roots().workspace.lexically_relative(tree.roots().tree).string();
  const Snapshot after = take_snapshot(tree.roots().tree);
  std::vector<FsChange> changes = outside_workspace(diff_snapshots(before, after), ws_rel);
  session->close();
  rec.evidence["spawner"] = session->evidence();
  if (ctx.spawner->persistent_setup()) changes = without_persistent_narrowing(std::move(changes), before, after, o.evidence);
  o.evidence["heartbeats_after_shutdown"] = {at, later};
  o.evidence["host_changes_outside_workspace"] = describe_changes(changes);
  o.in_run_control = at == 0 ? "the exec's heartbeat never started (the probe did not run)" : "";
  if (o.evidence["shutdown"] != "ok") o.in_run_control = "shutdown failed: " + o.evidence["shutdown"].get<std::string>();
  const bool survived = later > at;
  o.effect = survived || !changes.empty() ? Effect::kHappened : Effect::kNotHappened;
  o.summary = survived ? "a process of the session kept running after shutdown (heartbeat " + std::to_string(at) +
                             " -> " + std::to_string(later) + ")"
              : !changes.empty() ? "the session left the host changed outside the workspace: " + first_change(changes)
                                 : "nothing left after shutdown: no process, host unchanged outside the workspace";
  conclude(rec, ex, o);
}

// Boot, then the boot's own host changes judged (setup_record.h): one that widens what others may
// do outside the writable roots (a write grant, a removed deny, a new owner) is an escape of the
// setup, however cleanly shutdown undoes it; read/traverse grants and narrowing are shown.
// Control: the booted session runs an exec. The ACL marks (host_marks.h) are planted first, so
// a grant to any uid shows as a new entry.
void check_setup(const Execution& ex, const RunContext& ctx, const AttemptTree& tree, const Snapshot& before,
                 const SpawnRequest& request, const LaunchSpec& limits, Containment& box, AttemptRecord& rec) {
  auto session = ctx.spawner->open(request, limits, &box, ctx.cancel);
  const SetupRecord setup = record_setup(before, take_snapshot(tree.roots().tree), tree, request.resolved);
  const LaunchResult run = session->exec(request, limits);
  rec.exit = describe_exec(run);
  rec.stdout_excerpt = printable_excerpt(run.out, 2048);
  rec.stderr_excerpt = printable_excerpt(run.err, 2048);
  Observation o;
  shutdown_into(*session, o.evidence);
  session->close();
  rec.evidence["spawner"] = session->evidence();
  o.evidence["setup"] = setup.to_json();
  o.in_run_control = run.started && run.exited && run.exit_code == 0
                         ? ""
                         : "the booted session did not run its exec: " + describe_exec(run).dump();
  const auto widening = setup.widening();
  o.effect = widening.empty() ? Effect::kNotHappened : Effect::kHappened;
  std::size_t outside = 0;
  for (const auto& c : setup.changes) outside += c.outside_writable_roots;
  o.summary = !widening.empty() ? "boot widened access outside the writable roots: " + describe(*widening[0])
              : outside != 0   ? "boot changed " + std::to_string(outside) +
                                   " path(s) outside the writable roots, none widening: " + describe(setup.changes[0])
                               : "boot changed nothing outside the writable roots";
  conclude(rec, ex, o);
}

}  // namespace

void plant_session_marks(const AttemptTree& tree, const std::string& nonce) {
  const auto& r = tree.roots();
  for (const fs::path& p : {r.tree, r.workspace, r.home, r.sibling, r.extra}) plant_host_marks(p, nonce);
}

void run_session_check(const Execution& ex, const RunContext& ctx, const AttemptTree& tree, const AttemptIo& io,
                       const Snapshot& before, const SpawnRequest& request, const LaunchSpec& limits,
                       Containment& box, AttemptRecord& rec) {
  switch (ex.attempt->klass) {
    case AttemptClass::kSessionShutdown: return check_shutdown_under_load(ex, ctx, io, request, limits, box, rec);
    case AttemptClass::kBootFailure: return check_refused_boot(ex, ctx, tree, before, request, limits, box, rec);
    case AttemptClass::kSessionHygiene: return check_hygiene(ex, ctx, tree, io, before, request, limits, box, rec);
    case AttemptClass::kSessionSetup: return check_setup(ex, ctx, tree, before, request, limits, box, rec);
    default: throw Error("not a session class: " + std::string(to_string(ex.attempt->klass)));
  }
}

}  // namespace breakout
