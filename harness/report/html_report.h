// `breakout report`: one self-contained HTML file (inline CSS and SVG, no script, no network) and a Markdown summary.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "harness/report/results_io.h"

namespace breakout {

struct ReportTrendPoint {
  std::string run_id, started;
  int escapes = 0, executions = 0;
};

struct ReportInput {
  Results results;
  std::vector<ReportTrendPoint> trend;  // escapes per run of this spawner, oldest first (empty: no history)
  std::set<std::string> accepted;       // ids a baseline accepts with their current verdict
  std::string history_note;             // where the trend came from, or why there is none
};

std::string html_report(const ReportInput& in);
std::string markdown_summary(const ReportInput& in);

// The command that re-runs one execution (with its controls) the way this run did.
std::string reproduce_command(const RunInfo& info, const std::string& execution_id);

}  // namespace breakout
