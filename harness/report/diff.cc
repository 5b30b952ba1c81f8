// Diff rules: a failing verdict not in the base (or not accepted by the baseline) fails the gate, and so
// does lost coverage (coverage.h).
#include "harness/report/diff.h"

#include <algorithm>
#include <fstream>

#include "harness/core/error.h"
#include "harness/core/json_file.h"
#include "harness/core/text.h"

namespace breakout {

namespace {

bool failing(const std::string& v) { return !v.empty() && v != "pass" && v != "skip"; }

double median_spawn_ms(const Results& r) {
  std::vector<double> ms;
  for (const auto& a : r.records)
    if (auto it = a.exit.find("spawn_ms"); it != a.exit.end() && it->is_number()) ms.push_back(it->get<double>());
  if (ms.empty()) return 0;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// One execution of the base: its verdict, and whether a baseline accepts it (a run's never does).
struct BaseEntry {
  std::string verdict, reason;
  bool accepted = false;
};

// The shared core: `base` verdicts (absent from a baseline = assumed pass), `now` verdicts.
Diff compare(const std::map<std::string, BaseEntry>& base, const std::map<std::string, VerdictEntry>& now,
             bool baseline) {
  Diff d;
  d.against_baseline = baseline;
  for (const auto& [id, n] : now) {
    auto it = base.find(id);
    const std::string before = it == base.end() ? (baseline ? "pass" : "") : it->second.verdict;
    DiffEntry e{id, it == base.end() && !baseline ? "" : before, n.verdict, n.reason};
    if (it == base.end() && !baseline) d.added.push_back(e);
    if (it != base.end() && it->second.accepted && it->second.verdict == n.verdict) {
      d.accepted.push_back({id, before, n.verdict, it->second.reason});
      continue;
    }
    if (before == n.verdict) continue;
    if (!e.before.empty()) d.changed.push_back(e);
    if (failing(n.verdict)) d.new_failures.push_back(e);
    if (n.verdict == "escape") d.new_escapes.push_back(e);
    if (before == "escape" && judged(n.verdict)) d.fixed_escapes.push_back(e);  // a skip or error fixes nothing
  }
  for (const auto& [id, b] : base) {
    auto it = now.find(id);
    if (it == now.end()) d.removed.push_back({id, b.verdict, "", b.reason});
    if (judged(b.verdict) && (it == now.end() || !judged(it->second.verdict)))
      d.lost.push_back({id, b.verdict, it == now.end() ? "" : it->second.verdict,
                        it == now.end() ? "not in NEW" : it->second.reason});
  }
  return d;
}

// The lost-coverage reasons every comparison shares: an interrupted NEW, nothing judged in NEW,
// judged executions of the base not judged now, and identity changes not waived.
void add_lost_coverage(Diff& d, const Results& now, const std::vector<IdentityChange>& changes,
                       const DiffOptions& options, const std::string& base_word) {
  if (now.interrupted)
    d.lost_coverage.push_back("NEW is an interrupted run (results.json: \"interrupted\": true): it judged only part of "
                              "its suite");
  if (auto why = nothing_judged_reason(now.records)) d.lost_coverage.push_back(*why);
  if (!d.lost.empty()) {
    std::map<std::string, int> by;
    for (const auto& e : d.lost) ++by[e.after.empty() ? "missing" : e.after];
    std::string parts;
    for (const auto& [what, n] : by) parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    d.lost_coverage.push_back(std::to_string(d.lost.size()) + " execution" + (d.lost.size() == 1 ? "" : "s") +
                              " judged in " + base_word + " " + (d.lost.size() == 1 ? "is" : "are") +
                              " not judged in NEW (" + parts + "; listed under \"Lost coverage\")");
  }
  for (const auto& c : changes) {
    if (options.allow.count(c.field)) d.notes.push_back(c.sentence + " (allowed by --allow-change " + c.field + ")");
    else d.lost_coverage.push_back(c.sentence + " (--allow-change " + c.field + " if that is intended)");
  }
}

void refuse_interrupted(const Results& r, const std::string& what) {
  if (r.interrupted)
    throw Error("interrupted-base", what + " is an interrupted run (results.json: \"interrupted\": true): it judged "
                                           "only part of its suite, so it is no base to compare with; use a complete run");
}

std::string identity_label(const Results& r) {
  return r.info.run_id + " (" + r.info.spawner + (r.info.spawner_version.empty() ? "" : " " + r.info.spawner_version) +
         ")";
}

}  // namespace

std::map<std::string, VerdictEntry> verdict_map(const Results& r) {
  std::map<std::string, VerdictEntry> m;
  for (const auto& a : r.records) m[a.id] = {to_string(a.verdict), a.reason};
  return m;
}

Diff diff_runs(const Results& base, const Results& now, const DiffOptions& options) {
  refuse_interrupted(base, "BASE");
  std::map<std::string, BaseEntry> b;
  for (const auto& [id, v] : verdict_map(base)) b[id] = {v.verdict, v.reason, false};
  Diff d = compare(b, verdict_map(now), false);
  add_lost_coverage(d, now, identity_changes(identity_of(base.info), identity_of(now.info), "BASE"), options, "BASE");
  d.base_label = identity_label(base);
  d.new_label = identity_label(now);
  d.base_spawn_ms_median = median_spawn_ms(base);
  d.new_spawn_ms_median = median_spawn_ms(now);
  d.latency_regression = d.base_spawn_ms_median > 0 && d.new_spawn_ms_median > 1.5 * d.base_spawn_ms_median &&
                         d.new_spawn_ms_median - d.base_spawn_ms_median > 2.0;
  return d;
}

bool baseline_predates_coverage(const nlohmann::json& baseline) { return !baseline.contains("counts"); }

Diff diff_baseline(const nlohmann::json& baseline, const Results& now, const std::string& baseline_label,
                   const DiffOptions& options) {
  std::map<std::string, BaseEntry> base;
  for (const auto& id : baseline.value("passed", nlohmann::json::array())) base[id.get<std::string>()] = {"pass", "", false};
  for (const auto& id : baseline.value("skipped", nlohmann::json::array())) base[id.get<std::string>()] = {"skip", "", false};
  for (const auto& a : baseline.at("accepted"))
    base[a.at("id").get<std::string>()] = {a.at("verdict").get<std::string>(), a.value("reason", ""), true};
  Diff d = compare(base, verdict_map(now), true);
  const bool old = baseline_predates_coverage(baseline);
  RunIdentity b;
  b.spawner = baseline.value("spawner", "");
  b.version = baseline.value("spawner_version", "");
  b.suite = baseline.value("suite", "");
  b.platform = baseline.value("platform", "");
  b.policies = baseline.value("policies", std::vector<std::string>{});
  if (old)
    d.notes.push_back("the baseline predates the coverage check (it records no spawner version, platform, policies, "
                      "counts or passed executions): only its suite and spawner name are checked, and a pass that is "
                      "now skipped or missing cannot be seen; write it again with `breakout baseline`");
  add_lost_coverage(d, now, identity_changes(b, identity_of(now.info), "the baseline", !old), options, "the baseline");
  d.base_label = baseline_label;
  d.new_label = identity_label(now);
  d.new_spawn_ms_median = median_spawn_ms(now);
  return d;
}

nlohmann::json baseline_json(const Results& r) {
  refuse_interrupted(r, "the run");
  nlohmann::json accepted = nlohmann::json::array(), passed = nlohmann::json::array(),
                 skipped = nlohmann::json::array();
  for (const auto& a : r.records) {
    const std::string v = to_string(a.verdict);
    if (failing(v)) accepted.push_back({{"id", a.id}, {"verdict", v}, {"reason", a.reason}});
    else (v == "pass" ? passed : skipped).push_back(a.id);
  }
  return {{"schema", "breakout.baseline/1"},
          {"suite", r.info.suite},
          {"spawner", r.info.spawner},
          {"spawner_version", r.info.spawner_version},
          {"policies", r.info.policies},
          {"platform", r.info.platform},
          {"commit", r.info.commit},
          {"from_run", r.info.run_id},
          {"counts", count_verdicts(r.records)},
          {"note", "accepted findings: `breakout diff --baseline` fails only on what is not listed here (exit 4), "
                   "and on lost coverage (exit 5): another spawner, version, suite, policy set or platform, or a "
                   "`passed` execution that is no longer judged; edit `reason` to say why each is accepted"},
          {"accepted", accepted},
          {"passed", passed},
          {"skipped", skipped}};
}

nlohmann::json load_baseline(const std::filesystem::path& path) {
  const nlohmann::json j = read_json_file(path, "baseline");  // plain words on bad JSON
  const std::string where = printable_path(path) + ": ";
  const auto schema = j.is_object() ? j.find("schema") : j.end();
  if (!j.is_object() || schema == j.end() || *schema != "breakout.baseline/1" || !j.contains("accepted") ||
      !j["accepted"].is_array())
    throw Error("bad-baseline", where + "not a breakout.baseline/1 document (`breakout baseline` writes one)");
  for (const char* list : {"passed", "skipped"})
    if (j.contains(list) && !j[list].is_array()) throw Error("bad-baseline", where + "`" + list + "` is not a list of ids");
  return j;
}

nlohmann::json diff_json(const Diff& d) {
  auto list = [](const std::vector<DiffEntry>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& e : v) a.push_back({{"id", e.id}, {"before", e.before}, {"after", e.after}, {"reason", e.reason}});
    return a;
  };
  return {{"schema", "breakout.diff/1"},         {"base", d.base_label},
          {"new", d.new_label},                  {"against_baseline", d.against_baseline},
          {"new_escapes", list(d.new_escapes)},  {"new_failures", list(d.new_failures)},
          {"fixed_escapes", list(d.fixed_escapes)}, {"changed", list(d.changed)},
          {"added", list(d.added)},              {"removed", list(d.removed)},
          {"accepted", list(d.accepted)},
          {"lost_coverage", {{"reasons", d.lost_coverage}, {"executions", list(d.lost)}}},
          {"notes", d.notes},
          {"spawn_ms_median", {{"base", d.base_spawn_ms_median}, {"new", d.new_spawn_ms_median},
                               {"regression", d.latency_regression}}},
          {"gate", d.gate_status()}};
}

void print_diff(std::ostream& out, const Diff& d) {
  out << "breakout diff: " << d.base_label << " -> " << d.new_label << "\n";
  auto section = [&](const char* title, const std::vector<DiffEntry>& v, bool show_reason) {
    out << "\n" << title << " (" << v.size() << ")\n";
    for (const auto& e : v) {
      out << "  " << e.id << "  " << (e.before.empty() ? "-" : e.before) << " -> " << (e.after.empty() ? "-" : e.after)
          << "\n";
      if (show_reason && !e.reason.empty()) out << "      " << printable_excerpt(e.reason, 300) << "\n";
    }
  };
  section("New escapes", d.new_escapes, true);
  section("New failing verdicts (the gate)", d.new_failures, true);
  section("Fixed escapes", d.fixed_escapes, false);
  section("Changed verdicts", d.changed, false);
  if (!d.against_baseline) {
    section("Attempts added", d.added, false);
    section("Attempts removed", d.removed, false);
  } else {
    section("Accepted by the baseline (not gating)", d.accepted, true);
    section("Baseline entries not in this run", d.removed, false);
  }
  out << "\nSpawn latency (median spawn_ms): " << d.base_spawn_ms_median << " -> " << d.new_spawn_ms_median
      << (d.latency_regression ? "  REGRESSION (> +50 % and > +2 ms)" : "") << "\n";
  section("Lost coverage: judged before, not judged now (the gate)", d.lost, true);
  for (const auto& n : d.notes) out << "\nNote: " << n << "\n";
  const int status = d.gate_status();
  if (status == 0) {
    out << "\nGate: pass (nothing new, no coverage lost), exit status 0\n";
    return;
  }
  out << "\nGate: FAIL, exit status " << status << "\n";
  if (!d.new_escapes.empty()) out << "  new escape: " << d.new_escapes.size() << " (exit 4 wins)\n";
  for (const auto& why : d.lost_coverage) out << "  lost coverage: " << why << "\n";
  if (d.new_escapes.empty() && !d.new_failures.empty())
    out << "  new failing verdict: " << d.new_failures.size() << "\n";
}

}  // namespace breakout
