// `breakout report`: one self-contained HTML file (inline CSS and SVG, no script, no network) and a Markdown summary.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/report/results_io.h"

namespace breakout {

struct ReportTrendPoint {
  std::string run_id, started;
  int escapes = 0, executions = 0;
};

// A `breakout bench` run of the same spawner (docs/bench.md), as the report shows it; kept free of
// harness/bench types so the report stays below bench/ (breakout_report). The CLI converts.
struct ReportBenchFigure {
  std::string name, status, reason;
  std::size_t n = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, min_ms = 0, max_ms = 0;
  double ratio_to_raw = 0;      // 0: none (pipe/*, boot/*, raw failed)
  double bytes_per_second = 0;  // pipe/* only
};

struct ReportBench {
  std::string run_id, spawner, started, source;  // source: the file or "history"
  std::vector<ReportBenchFigure> figures;
};

// p50 of spawn/<spawner> per bench run, oldest first.
struct ReportLatencyPoint {
  std::string run_id, started;
  double p50_ms = 0, p99_ms = 0, ratio_to_raw = 0;
};

struct ReportInput {
  Results results;
  std::vector<ReportTrendPoint> trend;  // escapes per run of this spawner, oldest first (empty: no history)
  std::optional<ReportBench> bench;     // --bench, else the newest bench run of this spawner in the history
  std::vector<ReportLatencyPoint> latency_trend;
  std::string bench_note;               // why there is no bench section, if there is none
  std::set<std::string> accepted;       // ids a baseline accepts with their current verdict
  std::string history_note;             // where the trend came from, or why there is none
};

std::string html_report(const ReportInput& in);
std::string markdown_summary(const ReportInput& in);

// The command that re-runs one execution (with its controls) the way this run did.
std::string reproduce_command(const RunInfo& info, const std::string& execution_id);

}  // namespace breakout
