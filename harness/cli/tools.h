// The result-file subcommands (merge, diff, baseline, history, report) and run's history flags.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/attempt/record.h"
#include "harness/report/results.h"

namespace breakout {

// Where `run` and `merge` record the run (docs/results.md, "History").
struct HistoryOptions {
  std::string path;   // --history; "" = the default location
  bool off = false;   // --no-history
};
// kRecord: the command writes the run into the history (run, merge, bench); kRead: it only reads it (report).
enum class HistoryUse { kRecord, kRead };
void add_history_options(CLI::App* cmd, HistoryOptions& options, HistoryUse use = HistoryUse::kRecord);

// --color=auto|always|never for a command that prints the terminal summary, and whether that summary
// (on stdout) is painted: report/color.h's rule with stdout's terminal, NO_COLOR and TERM.
void add_color_option(CLI::App* cmd, std::string& mode);
bool summary_color(const std::string& mode);

// Records a finished run; a history failure is reported on stderr and never
// changes the run's exit status (the results files are already written).
void record_history(const HistoryOptions& options, const RunInfo& info, const std::vector<AttemptRecord>& records);

// report.html and summary.md beside a run's results.json, as `breakout report DIR --markdown`
// writes them, without the history trend (`breakout report` adds it). A failure is a warning:
// the results files are what the run promises.
void write_run_report(const std::filesystem::path& out_dir);
// The exit status of a finished run (`run`, `merge`): run_exit_status(), except that a run that judged
// nothing (every execution skipped, or none ran) says so on stderr and exits 5 unless `allow_all_skip`.
int nothing_judged_status(const std::vector<AttemptRecord>& records, bool allow_all_skip);

struct ToolCommands;
std::shared_ptr<ToolCommands> add_tool_commands(CLI::App& app);

// The exit status of the tool subcommand that was given, nullopt if none was.
std::optional<int> run_tool_commands(const ToolCommands& tools);

}  // namespace breakout
