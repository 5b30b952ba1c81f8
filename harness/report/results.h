// Writers for a run's results: results.json (docs/results.md), junit.xml, and the terminal summary.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/attempt/record.h"
#include "harness/host/spawner_residue.h"

namespace breakout {

struct RunInfo {
  std::string run_id, suite, started_utc, finished_utc;
  std::string spawner, spawner_version, spawner_description;
  std::string spawner_notes;              // the profile's notes: what is by design (Spawner::notes)
  std::string spawner_arg, suite_arg;     // --spawner / --suite as given (a profile or suite may be a path)
  bool real_host = false;                 // run --real-host (docs/real-host.md)
  std::vector<std::string> policies;
  std::string platform, kernel, host, breakout_version;
  std::string commit;                     // git commit breakout was built from ("" if unknown)
  std::string shard;                      // "K/N" for a `run --shard`, "" for a whole run
  std::vector<std::string> merged_from;   // run ids a `breakout merge` combined
  double wall_seconds = 0;
  int jobs = 1;
  ResidueFindings residue;                // what the spawner itself left on the host (not a verdict)
  // SIGINT/SIGTERM stopped the run: the records are the executions judged before it (run/runner.h), of
  // `planned`; the rest did not run and is absent (never a skip or a pass). Exit status 130.
  bool interrupted = false;
  std::size_t planned = 0;                // executions planned (0 in files that predate the field: all ran)
};

// "interrupted: N of M executions judged" (for an interrupted run; "" otherwise).
std::string interrupted_line(const RunInfo& info, std::size_t judged);

std::map<std::string, int> count_verdicts(const std::vector<AttemptRecord>& records);

// Nothing judged: `run`, `merge` and the gate (diff, diff --baseline) fail with this status of
// their own when a run judged nothing or, for the gate, judged less than its base (docs/results.md).
inline constexpr int kExitLostCoverage = 5;

// Exit status of `breakout run` (docs/results.md): 0 every attempt pass or skip, at least one
// judged; 3 at least one escape; 1 otherwise-failing (overblock, broken, error); 5 every
// execution skipped, or none ran (`run --allow-all-skip` accepts it); 2 is reserved for
// usage/configuration errors. An interrupted run exits 130 (cli/main.cc, results.json).
int run_exit_status(const std::vector<AttemptRecord>& records);

// Why `records` is a run that judged nothing (no executions, or every one skipped), if it is one.
std::optional<std::string> all_skipped_reason(const std::vector<AttemptRecord>& records);

nlohmann::json results_json(const RunInfo& info, const std::vector<AttemptRecord>& records);
std::string junit_xml(const RunInfo& info, const std::vector<AttemptRecord>& records);
// The terminal summary; `color`: escapes and overblocks painted (report/color.h decides when).
void print_summary(std::ostream& out, const RunInfo& info, const std::vector<AttemptRecord>& records,
                   const std::filesystem::path& out_dir, bool color = false);

// Writes results.json and junit.xml into `dir` (created if needed).
void write_results(const std::filesystem::path& dir, const RunInfo& info, const std::vector<AttemptRecord>& records);

}  // namespace breakout
