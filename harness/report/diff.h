// `breakout diff` and `breakout baseline`: what changed between two runs, or relative to an accepted baseline.
#pragma once

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/coverage.h"
#include "harness/report/results_io.h"

namespace breakout {

// The gate's exit status (docs/results.md): 0 nothing new and nothing lost, 4 a new escape or a
// new failing verdict, kExitLostCoverage (5, results.h) lost coverage, 2 usage (thrown as Error
// and mapped in main). A new escape wins over lost coverage, lost coverage over other new failures.
inline constexpr int kDiffGateFails = 4;

struct VerdictEntry {
  std::string verdict, reason;
};

struct DiffEntry {
  std::string id, before, after, reason;  // before/after: verdicts ("" = not in that run)
};

struct Diff {
  std::string base_label, new_label;
  bool against_baseline = false;
  std::vector<DiffEntry> new_escapes;    // escape now, not an escape (or not accepted as one) before
  std::vector<DiffEntry> new_failures;   // any failing verdict that is new (includes new_escapes): the gate
  std::vector<DiffEntry> fixed_escapes;  // an escape before, not now
  std::vector<DiffEntry> changed;        // every verdict change between executions in both
  std::vector<DiffEntry> added, removed; // executions only in NEW / only in BASE
  std::vector<DiffEntry> accepted;       // failing now and accepted by the baseline (same verdict)
  std::vector<DiffEntry> lost;           // judged in the base (pass, escape, overblock, broken), now skip, error or missing
  std::vector<std::string> lost_coverage;  // plain reasons the comparison judged less or something else (gate 5)
  std::vector<std::string> notes;        // printed, not gating (an old baseline, waived identity changes)
  double base_spawn_ms_median = 0, new_spawn_ms_median = 0;
  bool latency_regression = false;       // median spawn latency up by > 50 % and > 2 ms

  int gate_status() const {
    if (!new_escapes.empty()) return kDiffGateFails;
    if (!lost_coverage.empty()) return kExitLostCoverage;
    return new_failures.empty() ? 0 : kDiffGateFails;
  }
};

// What the gate may waive and how it names the base; the defaults waive nothing.
struct DiffOptions {
  AllowedChanges allow;
};

// id -> verdict of a results file.
std::map<std::string, VerdictEntry> verdict_map(const Results& r);

// Between two runs: executions missing from BASE are "added" (and gate if failing). Throws
// Error("interrupted-base") when BASE is an interrupted run: it is no base to compare with.
Diff diff_runs(const Results& base, const Results& now, const DiffOptions& options = {});

// Against a baseline: only failing executions are accepted in a baseline, so an id it does not
// name is taken as expected to pass; its `passed` list and identity are the coverage to keep.
Diff diff_baseline(const nlohmann::json& baseline, const Results& now, const std::string& baseline_label,
                   const DiffOptions& options = {});

// The accepted-baseline document (schema breakout.baseline/1): every failing execution of `r`,
// what `r` was a run of (spawner, version, suite, policies, platform, commit), its counts per
// verdict and the ids it judged `pass`. Throws Error("interrupted-base") for an interrupted run.
nlohmann::json baseline_json(const Results& r);
nlohmann::json load_baseline(const std::filesystem::path& path);
// A baseline written before the coverage check (no `counts`): only its suite and spawner name are checked.
bool baseline_predates_coverage(const nlohmann::json& baseline);

nlohmann::json diff_json(const Diff& d);
void print_diff(std::ostream& out, const Diff& d);

}  // namespace breakout
