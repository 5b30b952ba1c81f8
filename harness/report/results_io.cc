// results.json -> RunInfo + AttemptRecords; tolerant of optional keys, strict about the schema.
#include "harness/report/results_io.h"

#include <algorithm>
#include <fstream>

#include "harness/core/error.h"
#include "harness/core/json_file.h"
#include "harness/core/text.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

template <typename T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

AttemptRecord record_from_json(const nlohmann::json& a) {
  AttemptRecord r;
  r.id = a.at("id").get<std::string>();
  r.group = get_or<std::string>(a, "group", r.id);
  r.attempt_id = get_or<std::string>(a, "attempt", "");
  r.title = get_or<std::string>(a, "title", "");
  r.description = get_or<std::string>(a, "description", "");
  r.reference = get_or<std::string>(a, "reference", "");
  r.klass = get_or<std::string>(a, "class", "");
  r.policy = get_or<std::string>(a, "policy", "");
  r.target = get_or<std::string>(a, "target", "");
  r.role = get_or<std::string>(a, "role", "");
  r.expected = get_or<std::string>(a, "expected", "");
  r.expected_why = get_or<std::string>(a, "expected_why", "");
  r.probe = get_or<std::string>(a, "probe", "");
  r.probe_argv = get_or<std::vector<std::string>>(a, "probe_argv", {});
  r.spawner_argv = get_or<std::vector<std::string>>(a, "spawner_argv", {});
  const auto verdict = verdict_from(a.at("verdict").get<std::string>());
  if (!verdict) throw Error("results: " + r.id + ": unknown verdict " + a.at("verdict").dump());
  r.verdict = *verdict;
  r.reason = get_or<std::string>(a, "reason", "");
  r.evidence = a.value("evidence", nlohmann::json::object());
  r.probe_report = a.value("probe_report", nlohmann::json());
  r.exit = a.value("exit", nlohmann::json::object());
  r.stdout_excerpt = get_or<std::string>(a, "stdout_excerpt", "");
  r.stderr_excerpt = get_or<std::string>(a, "stderr_excerpt", "");
  r.controls = get_or<std::vector<std::string>>(a, "controls", {});
  r.duration_ms = get_or<double>(a, "duration_ms", 0);
  if (const auto src = a.find("source"); src != a.end() && src->is_object()) {
    r.source_file = get_or<std::string>(*src, "file", "");
    r.source_line = get_or<int>(*src, "line", 0);
  }
  return r;
}

}  // namespace

Results results_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("schema", "") != "breakout.results/1")
    throw Error("not a breakout.results/1 document");
  Results res;
  const auto& run = j.at("run");
  RunInfo& i = res.info;
  i.run_id = get_or<std::string>(run, "id", "");
  i.suite = get_or<std::string>(run, "suite", "");
  i.policies = get_or<std::vector<std::string>>(run, "policies", {});
  const auto sp = run.value("spawner", nlohmann::json::object());
  i.spawner = get_or<std::string>(sp, "name", "");
  i.spawner_version = get_or<std::string>(sp, "version", "");
  i.spawner_description = get_or<std::string>(sp, "description", "");
  i.spawner_notes = get_or<std::string>(sp, "notes", "");
  i.spawner_arg = get_or<std::string>(sp, "arg", "");
  i.suite_arg = get_or<std::string>(run, "suite_arg", "");
  i.real_host = get_or<bool>(run, "real_host", false);
  i.breakout_version = get_or<std::string>(run, "breakout_version", "");
  i.commit = get_or<std::string>(run, "commit", "");
  i.shard = get_or<std::string>(run, "shard", "");
  i.merged_from = get_or<std::vector<std::string>>(run, "merged_from", {});
  i.platform = get_or<std::string>(run, "platform", "");
  i.kernel = get_or<std::string>(run, "kernel", "");
  i.host = get_or<std::string>(run, "host", "");
  i.started_utc = get_or<std::string>(run, "started", "");
  i.finished_utc = get_or<std::string>(run, "finished", "");
  i.wall_seconds = get_or<double>(run, "wall_seconds", 0);
  i.jobs = get_or<int>(run, "jobs", 1);
  if (run.contains("spawner_residue")) i.residue = residue_from_json(run.at("spawner_residue"));
  for (const auto& a : j.at("attempts")) res.records.push_back(record_from_json(a));
  // Top level, beside "summary": a partial run says so (an older file is a whole one).
  i.interrupted = get_or<bool>(j, "interrupted", false);
  i.planned = std::max(get_or<std::size_t>(j, "planned", 0), res.records.size());
  res.interrupted = i.interrupted || get_or<bool>(run, "interrupted", false);
  return res;
}

Results load_results(const fs::path& path) {
  const fs::path file = fs::is_directory(path) ? path / "results.json" : path;
  const nlohmann::json j = read_json_file(file, "results file");  // plain words on bad JSON
  try {
    return results_from_json(j);
  } catch (const nlohmann::json::exception& e) {
    throw Error("bad-results", printable_path(file) + ": not a valid breakout.results/1 file: " + json_error_text(e));
  } catch (const Error& e) {
    throw Error("bad-results", printable_path(file) + ": " + printable_excerpt(e.what(), 600));
  }
}

}  // namespace breakout
