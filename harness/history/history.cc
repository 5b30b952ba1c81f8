// History schema and queries; summaries are stored per run so listing never scans executions.
#include "harness/history/history.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "harness/core/error.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

constexpr const char* kVerdicts[] = {"pass", "escape", "overblock", "broken", "error", "skip"};

constexpr const char* kHistorySchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  suite TEXT NOT NULL, spawner TEXT NOT NULL, spawner_version TEXT, breakout_version TEXT, git_commit TEXT,
  platform TEXT, kernel TEXT, host TEXT, policies TEXT, shard TEXT, merged_from TEXT,
  started TEXT NOT NULL, finished TEXT, wall_seconds REAL, jobs INTEGER,
  n_pass INTEGER, n_escape INTEGER, n_overblock INTEGER, n_broken INTEGER, n_error INTEGER, n_skip INTEGER,
  exit_status INTEGER);
CREATE TABLE IF NOT EXISTS executions (
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  exec_id TEXT NOT NULL, class TEXT, policy TEXT, verdict TEXT NOT NULL, reason TEXT,
  duration_ms REAL, spawn_ms REAL);
CREATE INDEX IF NOT EXISTS runs_by_spawner_time ON runs(spawner, started);
CREATE INDEX IF NOT EXISTS runs_by_time ON runs(started);
CREATE INDEX IF NOT EXISTS executions_by_run ON executions(run, verdict);
CREATE INDEX IF NOT EXISTS executions_by_id ON executions(exec_id);
)sql";

}  // namespace

History::History(const fs::path& path) : db_(path) {
  db_.exec(kHistorySchema);
}

void History::record(const RunInfo& info, const std::vector<AttemptRecord>& records) {
  std::map<std::string, int> counts;
  for (const auto& r : records) ++counts[to_string(r.verdict)];
  sql::Transaction tx(db_);
  sql::Stmt run(db_,
                "INSERT OR REPLACE INTO runs (run_id, suite, spawner, spawner_version, breakout_version, git_commit, "
                "platform, kernel, host, policies, shard, merged_from, started, finished, wall_seconds, jobs, n_pass, "
                "n_escape, n_overblock, n_broken, n_error, n_skip, exit_status) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  run.bind(1, info.run_id).bind(2, info.suite).bind(3, info.spawner).bind(4, info.spawner_version);
  run.bind(5, info.breakout_version).bind(6, info.commit).bind(7, info.platform).bind(8, info.kernel);
  run.bind(9, info.host).bind(10, nlohmann::json(info.policies).dump()).bind(11, info.shard);
  run.bind(12, nlohmann::json(info.merged_from).dump()).bind(13, info.started_utc).bind(14, info.finished_utc);
  run.bind(15, info.wall_seconds).bind(16, info.jobs);
  int col = 17;
  for (const char* v : kVerdicts) run.bind(col++, counts[v]);
  const bool escape = counts["escape"] > 0;
  const bool failing = counts["overblock"] + counts["broken"] + counts["error"] > 0;
  run.bind(col, escape ? 3 : failing ? 1 : 0);
  run.step();
  const std::int64_t run_row = db_.last_insert_rowid();
  sql::Stmt ex(db_,
               "INSERT INTO executions (run, exec_id, class, policy, verdict, reason, duration_ms, spawn_ms) "
               "VALUES (?,?,?,?,?,?,?,?)");
  for (const auto& r : records) {
    ex.reset();
    ex.bind(1, run_row).bind(2, r.id).bind(3, r.klass).bind(4, r.policy).bind(5, std::string(to_string(r.verdict)));
    ex.bind(6, r.reason).bind(7, r.duration_ms);
    if (auto it = r.exit.find("spawn_ms"); it != r.exit.end() && it->is_number())
      ex.bind(8, it->get<double>());
    else
      ex.bind_null(8);
    ex.step();
  }
  tx.commit();
}

std::vector<HistoryRun> History::last_runs(int n) {
  sql::Stmt q(db_,
              "SELECT run_id, suite, spawner, spawner_version, breakout_version, git_commit, platform, host, shard, "
              "started, wall_seconds, n_pass, n_escape, n_overblock, n_broken, n_error, n_skip, exit_status, "
              "(SELECT COUNT(*) FROM executions e WHERE e.run = runs.id) "
              "FROM runs ORDER BY started DESC, id DESC LIMIT ?");
  q.bind(1, n);
  std::vector<HistoryRun> out;
  while (q.step()) {
    HistoryRun r;
    r.run_id = q.text(0), r.suite = q.text(1), r.spawner = q.text(2), r.spawner_version = q.text(3);
    r.breakout_version = q.text(4), r.commit = q.text(5), r.platform = q.text(6), r.host = q.text(7);
    r.shard = q.text(8), r.started = q.text(9), r.wall_seconds = q.real(10);
    int col = 11;
    for (const char* v : kVerdicts) r.summary[v] = static_cast<int>(q.integer(col++));
    r.exit_status = static_cast<int>(q.integer(17));
    r.executions = q.integer(18);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<TrendPoint> History::escape_trend(const std::string& spawner, int n) {
  // Counted from the execution rows (not the stored summary), through the (run, verdict) index.
  sql::Stmt q(db_,
              "SELECT r.run_id, r.started, "
              "(SELECT COUNT(*) FROM executions e WHERE e.run = r.id AND e.verdict = 'escape'), "
              "(SELECT COUNT(*) FROM executions e WHERE e.run = r.id) "
              "FROM runs r WHERE (?1 = '' OR r.spawner = ?1) ORDER BY r.started DESC, r.id DESC LIMIT ?2");
  q.bind(1, spawner).bind(2, n);
  std::vector<TrendPoint> out;
  while (q.step())
    out.push_back({q.text(0), q.text(1), static_cast<int>(q.integer(2)), static_cast<int>(q.integer(3)), 0});
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::string> changed_verdicts(const std::map<std::string, std::string>& before,
                                          const std::map<std::string, std::string>& after, std::size_t* total) {
  std::vector<std::string> out;
  *total = 0;
  const auto note = [&](const std::string& id, const std::string& a, const std::string& b) {
    if (a == b) return;
    ++*total;
    if (out.size() < kMaxChangedShown) out.push_back(id + ": " + a + " -> " + b);
  };
  for (const auto& [id, v] : after) {
    const auto it = before.find(id);
    note(id, it == before.end() ? "absent" : it->second, v);
  }
  for (const auto& [id, v] : before)
    if (!after.count(id)) note(id, v, "absent");
  return out;
}

std::vector<ReleaseStep> History::release_trend(const std::string& spawner, int n) {
  std::vector<std::string> ids;  // shards are parts of a run: their merge is the run
  std::map<std::string, HistoryRun> runs;
  for (const auto& r : last_runs(1 << 20)) {
    if (r.spawner != spawner || !r.shard.empty() || static_cast<int>(ids.size()) >= n) continue;
    ids.push_back(r.run_id);
    runs[r.run_id] = r;
  }
  std::reverse(ids.begin(), ids.end());  // oldest first
  std::map<std::string, std::map<std::string, std::string>> last_of_suite;  // suite -> id -> verdict
  std::map<std::string, std::vector<ReleaseStep>> by_suite;
  std::vector<std::string> suites;
  for (const auto& id : ids) {
    const Results res = load(id);
    std::map<std::string, std::string> verdicts;
    for (const auto& a : res.records) verdicts[a.id] = to_string(a.verdict);
    ReleaseStep step;
    step.run = runs[id];
    const auto prev = last_of_suite.find(step.run.suite);
    step.first = prev == last_of_suite.end();
    if (!step.first) step.changed = changed_verdicts(prev->second, verdicts, &step.changed_total);
    if (!by_suite.count(step.run.suite)) suites.push_back(step.run.suite);
    last_of_suite[step.run.suite] = std::move(verdicts);
    by_suite[step.run.suite].push_back(std::move(step));
  }
  std::vector<ReleaseStep> out;
  for (const auto& s : suites)
    for (auto& step : by_suite[s]) out.push_back(std::move(step));
  return out;
}

Results History::load(const std::string& run_id) {
  sql::Stmt q(db_,
              "SELECT id, suite, spawner, spawner_version, breakout_version, git_commit, platform, kernel, host, "
              "policies, shard, started, finished, wall_seconds, jobs FROM runs WHERE run_id = ?");
  q.bind(1, run_id);
  if (!q.step()) throw Error("no results file or history run '" + run_id + "'");
  Results res;
  RunInfo& i = res.info;
  const std::int64_t row = q.integer(0);
  i.run_id = run_id, i.suite = q.text(1), i.spawner = q.text(2), i.spawner_version = q.text(3);
  i.breakout_version = q.text(4), i.commit = q.text(5), i.platform = q.text(6), i.kernel = q.text(7);
  i.host = q.text(8), i.policies = nlohmann::json::parse(q.text(9)).get<std::vector<std::string>>();
  i.shard = q.text(10), i.started_utc = q.text(11), i.finished_utc = q.text(12), i.wall_seconds = q.real(13);
  i.jobs = static_cast<int>(q.integer(14));
  sql::Stmt e(db_,
              "SELECT exec_id, class, policy, verdict, reason, duration_ms, spawn_ms FROM executions WHERE run = ? "
              "ORDER BY rowid");
  e.bind(1, row);
  while (e.step()) {
    AttemptRecord r;
    r.id = e.text(0), r.klass = e.text(1), r.policy = e.text(2);
    r.verdict = verdict_from(e.text(3)).value_or(Verdict::kError);
    r.reason = e.text(4), r.duration_ms = e.real(5);
    if (!e.is_null(6)) r.exit["spawn_ms"] = e.real(6);
    r.group = r.id.substr(0, r.id.find('['));
    r.attempt_id = r.group.substr(0, r.group.find('@'));
    res.records.push_back(std::move(r));
  }
  return res;
}

}  // namespace breakout
