// The run history: every run and merge with its metadata and one row per execution, in SQLite.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "harness/history/sqlite.h"
#include "harness/report/results_io.h"

namespace breakout {

// The platform's default file (history/posix, history/win default_path.cc): $XDG_STATE_HOME/breakout/history.sqlite,
// else ~/.local/state/breakout/history.sqlite; on Windows %LOCALAPPDATA%\breakout\history.sqlite.
std::filesystem::path default_history_path();

struct HistoryRun {
  std::string run_id, suite, spawner, spawner_version, breakout_version, commit, platform, host, shard;
  std::string started;
  double wall_seconds = 0;
  std::int64_t executions = 0;
  std::map<std::string, int> summary;  // verdict -> count
  int exit_status = 0;
};

// One point of a trend: a run of a spawner and how many escapes it had.
struct TrendPoint {
  std::string run_id, started;
  int escapes = 0, executions = 0;
  double spawn_ms_median = 0;
};

// One run of a spawner on a suite, beside the previous run of the same spawner and suite: what a
// release changed (`history --trend`, docs/spawners.md "Release over release").
struct ReleaseStep {
  HistoryRun run;
  bool first = false;                                    // no earlier run of this spawner and suite
  std::vector<std::string> changed;                      // "id: pass -> escape", at most kMaxChangedShown
  std::size_t changed_total = 0;
};
inline constexpr std::size_t kMaxChangedShown = 20;

// The executions whose verdict differs between two runs (absent on one side reads "absent").
std::vector<std::string> changed_verdicts(const std::map<std::string, std::string>& before,
                                          const std::map<std::string, std::string>& after, std::size_t* total);

class History {
 public:
  explicit History(const std::filesystem::path& path);  // creates the file, its directory and the schema

  void record(const RunInfo& info, const std::vector<AttemptRecord>& records);
  std::vector<HistoryRun> last_runs(int n);
  // Escapes per run of `spawner` (all spawners if empty), oldest first, at most the last `n` runs.
  std::vector<TrendPoint> escape_trend(const std::string& spawner, int n);
  // The last `n` runs of `spawner`, oldest first, grouped by suite, each with what changed since the
  // previous run of that suite.
  std::vector<ReleaseStep> release_trend(const std::string& spawner, int n);
  // Results as far as the history keeps them (ids, classes, policies, verdicts, reasons, timings).
  Results load(const std::string& run_id);

 private:
  sql::Db db_;
};

}  // namespace breakout
