// Diff rules: a failing verdict not in the base (or not accepted by the baseline) fails the gate.
#include "harness/report/diff.h"

#include <algorithm>
#include <fstream>

#include "harness/core/error.h"
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

// The shared core: `base` verdicts (absent = `absent_verdict`), `now` verdicts.
Diff compare(const std::map<std::string, VerdictEntry>& base, const std::map<std::string, VerdictEntry>& now,
             bool baseline) {
  Diff d;
  d.against_baseline = baseline;
  for (const auto& [id, n] : now) {
    auto it = base.find(id);
    const std::string before = it == base.end() ? (baseline ? "pass" : "") : it->second.verdict;
    DiffEntry e{id, it == base.end() && !baseline ? "" : before, n.verdict, n.reason};
    if (it == base.end() && !baseline) d.added.push_back(e);
    if (baseline && it != base.end() && it->second.verdict == n.verdict) {
      d.accepted.push_back({id, before, n.verdict, it->second.reason});
      continue;
    }
    if (before == n.verdict) continue;
    if (!e.before.empty()) d.changed.push_back(e);
    if (failing(n.verdict)) d.new_failures.push_back(e);
    if (n.verdict == "escape") d.new_escapes.push_back(e);
    if (before == "escape") d.fixed_escapes.push_back(e);
  }
  for (const auto& [id, b] : base)
    if (!now.count(id)) d.removed.push_back({id, b.verdict, "", b.reason});
  return d;
}

}  // namespace

std::map<std::string, VerdictEntry> verdict_map(const Results& r) {
  std::map<std::string, VerdictEntry> m;
  for (const auto& a : r.records) m[a.id] = {to_string(a.verdict), a.reason};
  return m;
}

Diff diff_runs(const Results& base, const Results& now) {
  Diff d = compare(verdict_map(base), verdict_map(now), false);
  d.base_label = base.info.run_id + " (" + base.info.spawner + ")";
  d.new_label = now.info.run_id + " (" + now.info.spawner + ")";
  d.base_spawn_ms_median = median_spawn_ms(base);
  d.new_spawn_ms_median = median_spawn_ms(now);
  d.latency_regression = d.base_spawn_ms_median > 0 && d.new_spawn_ms_median > 1.5 * d.base_spawn_ms_median &&
                         d.new_spawn_ms_median - d.base_spawn_ms_median > 2.0;
  return d;
}

Diff diff_baseline(const nlohmann::json& baseline, const Results& now, const std::string& baseline_label) {
  std::map<std::string, VerdictEntry> base;
  for (const auto& a : baseline.at("accepted"))
    base[a.at("id").get<std::string>()] = {a.at("verdict").get<std::string>(), a.value("reason", "")};
  Diff d = compare(base, verdict_map(now), true);
  d.base_label = baseline_label;
  d.new_label = now.info.run_id + " (" + now.info.spawner + ")";
  d.new_spawn_ms_median = median_spawn_ms(now);
  return d;
}

nlohmann::json baseline_json(const Results& r) {
  nlohmann::json accepted = nlohmann::json::array();
  for (const auto& a : r.records)
    if (failing(to_string(a.verdict)))
      accepted.push_back({{"id", a.id}, {"verdict", to_string(a.verdict)}, {"reason", a.reason}});
  return {{"schema", "breakout.baseline/1"},
          {"suite", r.info.suite},
          {"spawner", r.info.spawner},
          {"from_run", r.info.run_id},
          {"note", "accepted findings: `breakout diff --baseline` fails only on what is not listed here; "
                   "edit `reason` to say why each is accepted"},
          {"accepted", accepted}};
}

nlohmann::json load_baseline(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read baseline " + path.string());
  try {
    auto j = nlohmann::json::parse(in);
    if (j.value("schema", "") != "breakout.baseline/1" || !j.contains("accepted") || !j["accepted"].is_array())
      throw Error("not a breakout.baseline/1 document");
    return j;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": " + e.what());
  } catch (const Error& e) {
    throw Error(path.string() + ": " + e.what());
  }
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
  out << "\nGate: " << (d.gate_status() == 0 ? "pass (nothing new)" : "FAIL (new escape or failing verdict)")
      << ", exit status " << d.gate_status() << "\n";
}

}  // namespace breakout
