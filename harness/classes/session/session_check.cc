// The session classes' shared steps: planted marks, a plain boot, bounded descriptions.
#include "harness/classes/session/session_check.h"

#include "harness/core/text.h"
#include "harness/host/host_marks.h"

namespace breakout::oracles {

namespace fs = std::filesystem;

std::optional<Skip> SessionCheck::prepare(Scene& s) {
  const auto& r = s.tree.roots();
  for (const fs::path& p : {r.tree, r.workspace, r.home, r.sibling, r.extra}) plant_host_marks(p, s.nonce);
  return std::nullopt;
}

std::unique_ptr<SpawnSession> SessionCheck::open(Scene& s) {
  return s.ctx.spawner->open(s.request, s.limits, &s.box, s.ctx.cancel);
}

nlohmann::json describe_exec(const LaunchResult& r) {
  nlohmann::json j = {{"started", r.started}, {"exit_code", r.exited ? nlohmann::json(r.exit_code) : nlohmann::json()},
                      {"signal", r.term_signal}, {"timed_out", r.timed_out}};
  if (!r.start_error.empty()) j["error"] = printable_excerpt(r.start_error, 512);
  return j;
}

void record_exec(AttemptRecord& rec, const LaunchResult& r) {
  rec.exit = describe_exec(r);
  rec.stdout_excerpt = printable_excerpt(r.out, 2048);
  rec.stderr_excerpt = printable_excerpt(r.err, 2048);
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

void shutdown_into(SpawnSession& s, nlohmann::json& evidence) {
  try {
    s.shutdown();
    evidence["shutdown"] = "ok";
  } catch (const std::exception& e) {
    evidence["shutdown"] = printable_excerpt(e.what(), 1024);
  }
}

}  // namespace breakout::oracles
