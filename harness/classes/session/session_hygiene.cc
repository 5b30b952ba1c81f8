// session-hygiene: boot, one exec that leaves a process behind, shutdown: no process and no
// change outside the workspace's contents may remain.
#include <algorithm>
#include <thread>

#include "harness/classes/session/judge.h"
#include "harness/classes/session/session_check.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/host/access_change.h"

namespace breakout::oracles {

namespace {

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

class SessionHygiene final : public SessionCheck {
 public:
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to run the exec in");
    session_ = session;
    LaunchResult run = session->exec(s.request, s.limits);
    record_exec(s.rec, run);
    s.rec.probe_report = parse_probe_report(run.out);
    check(run.started, "the exec did not run: " + run.start_error);
    return run;
  }

  Observation observe(Scene& s, const LaunchResult&) override {
    Observation o;
    shutdown_into(*session_, o.evidence);
    std::this_thread::sleep_for(s.ctx.settle);
    const std::size_t at = count_lines(s.io.heartbeat);
    std::this_thread::sleep_for(s.ctx.heartbeat_grace);
    const std::size_t later = count_lines(s.io.heartbeat);
    const std::string ws_rel = s.tree.roots().workspace.lexically_relative(s.tree.roots().tree).string();
    const Snapshot after = take_snapshot(s.tree.roots().tree);
    std::vector<FsChange> changes = outside_workspace(diff_snapshots(*s.before, after), ws_rel);
    session_->close();
    s.rec.evidence["spawner"] = session_->evidence();
    if (s.ctx.spawner->persistent_setup())
      changes = without_persistent_narrowing(std::move(changes), *s.before, after, o.evidence);
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
    return o;
  }

 private:
  SpawnSession* session_ = nullptr;  // run_attempt's, alive until after end()
};

}  // namespace

std::unique_ptr<Oracle> session_hygiene() { return make_oracle<SessionHygiene>(); }

}  // namespace breakout::oracles
