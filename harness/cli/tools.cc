// CLI glue for merge, diff, baseline, history and report; the logic lives in harness/report and harness/history.
#include "harness/cli/tools.h"

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "harness/cli/bench_cmd.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/platform/os.h"
#include "harness/report/color.h"
#include "harness/report/diff.h"
#include "harness/report/html_report.h"
#include "harness/report/merge.h"
#include "harness/report/results_io.h"
#include "harness/report/sarif.h"
#ifdef BREAKOUT_HAVE_HISTORY
#include "harness/history/bench_history.h"
#include "harness/history/history.h"
#endif

namespace breakout {

namespace fs = std::filesystem;

struct ToolCommands {
  CLI::App* merge = nullptr;
  std::string merge_out;
  std::vector<std::string> merge_shards;
  HistoryOptions merge_history;
  bool merge_allow_all_skip = false;
  std::string merge_color = "auto";
  bool merge_sarif_all = false;

  CLI::App* diff = nullptr;
  std::vector<std::string> diff_runs;
  std::string diff_baseline, diff_json_out;
  std::vector<std::string> diff_allow_change;
  HistoryOptions diff_history;

  CLI::App* history = nullptr;
  HistoryOptions history_db;
  int history_last = 20;
  std::string history_trend;
  bool history_trend_all = false;

  CLI::App* report = nullptr;
  std::string report_run, report_out = "report.html", report_markdown, report_baseline, report_bench, report_sarif;
  bool report_sarif_all = false;
  HistoryOptions report_history;

  CLI::App* baseline = nullptr;
  std::string baseline_results, baseline_out;
};

void add_history_options(CLI::App* cmd, HistoryOptions& options, HistoryUse use) {
  cmd->add_option("--history", options.path,
                  "history database (default $XDG_STATE_HOME/breakout/history.sqlite, else "
                  "~/.local/state/breakout/history.sqlite; on Windows %LOCALAPPDATA%\\breakout\\history.sqlite)");
  cmd->add_flag("--no-history", options.off,
                use == HistoryUse::kRecord
                    ? "do not record this run in the history database"
                    : "do not read the history database: no escape trend, and no bench run taken from it "
                      "(a report never writes the history)");
}

void add_color_option(CLI::App* cmd, std::string& mode) {
  cmd->add_option("--color", mode,
                  "colour escapes and overblocks in the summary: auto (only on a terminal, and not when "
                  "NO_COLOR is set), always, never")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

bool summary_color(const std::string& mode) {
  return color_enabled(parse_color_mode(mode).value_or(ColorMode::kAuto), is_tty(1), std::getenv("NO_COLOR"),
                       std::getenv("TERM"));
}

#ifdef BREAKOUT_HAVE_HISTORY
namespace {
fs::path history_path(const HistoryOptions& o) { return o.path.empty() ? default_history_path() : fs::path(o.path); }
}  // namespace

void record_history(const HistoryOptions& options, const RunInfo& info, const std::vector<AttemptRecord>& records) {
  if (options.off) return;
  // A partial run is not history: its trend point would read as escapes that went away (docs/results.md).
  if (info.interrupted) {
    std::cout << "History: not recorded (interrupted run; results.json has what was judged)\n";
    return;
  }
  try {
    const fs::path path = history_path(options);
    History(path).record(info, records);
    std::cout << "History: " << path.string() << " (run " << info.run_id << ")\n";
  } catch (const std::exception& e) {
    std::cerr << "breakout: warning: run not recorded in the history: " << e.what() << "\n";
  }
}

Results load_history_run(const HistoryOptions& options, const std::string& run_id) {
  const fs::path path = history_path(options);
  if (!fs::exists(path)) throw Error("no results file '" + run_id + "' (and no history at " + path.string() + ")");
  return History(path).load(run_id);
}
#else
void record_history(const HistoryOptions&, const RunInfo&, const std::vector<AttemptRecord>&) {}

Results load_history_run(const HistoryOptions&, const std::string& run_id) {
  throw Error("no results file '" + run_id + "' (this build has no history database)");
}
#endif

std::shared_ptr<ToolCommands> add_tool_commands(CLI::App& app) {
  auto t = std::make_shared<ToolCommands>();
  t->merge = app.add_subcommand("merge", "combine shard results (run --shard K/N) into one results.json, junit.xml and results.sarif");
  t->merge->add_option("OUT_DIR", t->merge_out, "directory for the merged results")->required();
  t->merge->add_option("SHARD_DIR", t->merge_shards, "shard results directories or results.json files")
      ->required()
      ->expected(1, -1);
  add_history_options(t->merge, t->merge_history);
  t->merge->add_flag("--allow-all-skip", t->merge_allow_all_skip,
                     "exit 0 instead of 5 when every merged execution skipped or none ran");
  add_color_option(t->merge, t->merge_color);
  t->merge->add_flag("--sarif-all", t->merge_sarif_all, "results.sarif lists passes and skips too, not only the findings");
  t->merge->footer("Example:\n  breakout merge results/all results/shard-1 results/shard-2\n"
                   "Exit status: that of the merged run (0, 3, 1, 5 as for run; 130 when a shard was interrupted);\n"
                   "2 if the shards do not fit together.");

  t->diff = app.add_subcommand("diff", "compare two runs (results files or history run ids), or a run with a baseline");
  t->diff->add_option("RUNS", t->diff_runs, "BASE NEW, or just NEW with --baseline")->required()->expected(1, 2);
  t->diff->add_option("--baseline", t->diff_baseline, "accepted-baseline file (breakout baseline) to compare NEW with");
  t->diff->add_option("--json", t->diff_json_out, "also write the diff as JSON to this file");
  t->diff->add_option("--history", t->diff_history.path, "history database to resolve run ids in");
  t->diff->add_option("--allow-change", t->diff_allow_change,
                      "identity fields NEW may change without failing the gate: spawner,version,suite,policies,platform")
      ->delimiter(',');
  t->diff->footer("Examples:\n"
                  "  breakout diff results/last-release results/now\n"
                  "  breakout diff --baseline bwrap.baseline.json results/now\n"
                  "Exit status: 0 nothing new, no coverage lost; 4 a new escape or a new failing verdict (relative\n"
                  "to BASE or the baseline), or for two bench runs (breakout.bench/1 files or bench run ids) a\n"
                  "significant latency slowdown (Mann-Whitney U, docs/bench.md); 5 lost coverage: an execution\n"
                  "judged in the base is skipped, in error or missing, the spawner, its version, the suite, the\n"
                  "policy set or the platform differs (--allow-change), NEW judged nothing or was interrupted\n"
                  "(a new escape's 4 wins); 2 usage error, or an interrupted BASE.");

  t->history = app.add_subcommand("history", "list recorded runs, and the escape and spawn-latency trends of a spawner");
  t->history->add_option("--history", t->history_db.path, "history database (default as for run)");
  t->history->add_option("--last", t->history_last, "how many runs to list")->capture_default_str()->check(
      CLI::Range(1, 100000));
  t->history->add_option("--trend", t->history_trend, "show escapes per run and p50 spawn latency per bench run of this spawner over time");
  t->history->footer("Example:\n  breakout history --trend bwrap --last 10\n"
                     "Exit status: 0 listed; 2 no history database at that path, or it cannot be read.");

  t->report = app.add_subcommand("report", "write a self-contained HTML report (and a Markdown summary) of a run");
  t->report->add_option("RESULTS_OR_RUN", t->report_run, "results.json, its directory, or a history run id")
      ->required();
  t->report->add_option("--out", t->report_out, "HTML file to write")->capture_default_str();
  t->report->add_option("--markdown", t->report_markdown, "also write a Markdown summary (for CI step summaries)");
  t->report->add_option("--baseline", t->report_baseline, "show findings this baseline accepts separately");
  t->report->add_option("--sarif", t->report_sarif,
                        "also write SARIF 2.1.0 to this file (findings a --baseline accepts carry a suppression)");
  t->report->add_flag("--sarif-all", t->report_sarif_all, "with --sarif: list passes and skips too, not only the findings");
  t->report->add_option("--bench", t->report_bench,
                        "breakout.bench/1 file or bench run id to show (default: the newest bench run of the "
                        "run's spawner in the history)");
  add_history_options(t->report, t->report_history, HistoryUse::kRead);
  t->report->footer("Example:\n  breakout report results/now --out report.html --markdown summary.md --baseline bwrap.baseline.json\n"
                    "Exit status: 0 written (whatever the run's verdicts); 2 the run, baseline or bench run cannot be\n"
                    "read, or a file cannot be written.");

  t->baseline = app.add_subcommand("baseline", "write an accepted-baseline file from a run's failing executions");
  t->baseline->add_option("RESULTS", t->baseline_results, "results.json or its directory")->required();
  t->baseline->add_option("--out", t->baseline_out, "baseline file to write (commit it next to your sandbox)")
      ->required();
  t->baseline->footer("Example:\n  breakout baseline results/now --out bwrap.baseline.json\n"
                      "Exit status: 0 written; 2 the results cannot be read or the file cannot be written.");
  return t;
}

namespace {

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  return buf;
}

int cmd_merge(const ToolCommands& t) {
  std::vector<Results> shards;
  for (const auto& s : t.merge_shards) shards.push_back(load_results(s));
  const Results merged = merge_results(shards, utc_stamp() + "-" + random_hex(3) + "-merged");
  // Not an error (a CI job may merge what finished), but a merged run with a missing shard reads as complete.
  const std::string& spec = shards.front().info.shard;
  if (!spec.empty() && std::to_string(shards.size()) != spec.substr(spec.find('/') + 1))
    std::cerr << "breakout: warning: merging " << shards.size() << " shards of " << spec.substr(spec.find('/') + 1)
              << "; the merged run is incomplete\n";
  if (merged.info.interrupted) std::cerr << "breakout: warning: a shard was interrupted; the merged run is partial\n";
  write_results(t.merge_out, merged.info, merged.records);
  SarifOptions sarif;
  sarif.all = t.merge_sarif_all;
  write_sarif(fs::path(t.merge_out) / "results.sarif", merged.info, merged.records, sarif);
  print_summary(std::cout, merged.info, merged.records, t.merge_out, summary_color(t.merge_color));
  record_history(t.merge_history, merged.info, merged.records);
  return merged.info.interrupted ? 130 : nothing_judged_status(merged.records, t.merge_allow_all_skip);
}

// A results file or directory; otherwise a run id in the history database.
Results load_run(const std::string& spec, const HistoryOptions& history) {
  if (fs::exists(spec)) return load_results(spec);
  return load_history_run(history, spec);
}

int cmd_diff(const ToolCommands& t) {
  // Two bench runs: the latency compare (harness/bench/compare.h), same gate statuses.
  if (t.diff_baseline.empty())
    if (auto rc = diff_bench_runs(t.diff_runs, t.diff_json_out, t.diff_history)) return *rc;
  DiffOptions options;
  options.allow = parse_allowed_changes(t.diff_allow_change);
  Diff d;
  if (!t.diff_baseline.empty()) {
    if (t.diff_runs.size() != 1) throw Error("diff --baseline FILE takes one run (NEW)");
    d = diff_baseline(load_baseline(t.diff_baseline), load_run(t.diff_runs[0], t.diff_history), t.diff_baseline,
                      options);
  } else {
    if (t.diff_runs.size() != 2) throw Error("diff takes BASE and NEW (or --baseline FILE NEW)");
    d = diff_runs(load_run(t.diff_runs[0], t.diff_history), load_run(t.diff_runs[1], t.diff_history), options);
  }
  print_diff(std::cout, d);
  if (!t.diff_json_out.empty()) {
    std::ofstream out(t.diff_json_out);
    out << diff_json(d).dump(2) << "\n";
    if (!out) throw Error("cannot write " + t.diff_json_out);
  }
  return d.gate_status();
}

#ifdef BREAKOUT_HAVE_HISTORY
int cmd_history(const ToolCommands& t) {
  const fs::path path = history_path(t.history_db);
  if (!fs::exists(path)) throw Error("no history at " + path.string());
  History h(path);
  std::cout << "History " << path.string() << "\n\n"
            << std::left << std::setw(30) << "run" << std::setw(12) << "spawner" << std::setw(10) << "suite"
            << std::setw(7) << "shard" << std::setw(22) << "started" << std::right << std::setw(6) << "execs"
            << std::setw(6) << "pass" << std::setw(7) << "escape" << std::setw(7) << "other" << std::setw(6) << "skip"
            << std::setw(8) << "wall s" << "  commit\n";
  for (const auto& r : h.last_runs(t.history_last)) {
    const int other = r.summary.at("overblock") + r.summary.at("broken") + r.summary.at("error");
    std::cout << std::left << std::setw(30) << r.run_id << std::setw(12) << r.spawner << std::setw(10) << r.suite
              << std::setw(7) << (r.shard.empty() ? "-" : r.shard) << std::setw(22) << r.started << std::right
              << std::setw(6) << r.executions << std::setw(6) << r.summary.at("pass") << std::setw(7)
              << r.summary.at("escape") << std::setw(7) << other << std::setw(6) << r.summary.at("skip")
              << std::setw(8) << std::fixed << std::setprecision(1) << r.wall_seconds << "  "
              << (r.commit.empty() ? "-" : r.commit) << "\n";
  }
  if (!t.history_trend.empty()) {
    std::cout << "\nEscapes per run of " << t.history_trend << " (oldest first):\n";
    for (const auto& p : h.escape_trend(t.history_trend, t.history_last))
      std::cout << "  " << std::left << std::setw(22) << p.started << std::setw(30) << p.run_id << std::right
                << std::setw(5) << p.escapes << " / " << p.executions << "  " << std::string(std::min(p.escapes, 60), '#')
                << "\n";
    std::cout << "\nVerdicts per run of " << t.history_trend
              << " by suite, with what changed since the suite's previous run (oldest first):\n";
    std::string suite;
    for (const auto& step : h.release_trend(t.history_trend, t.history_last)) {
      const auto& r = step.run;
      if (r.suite != suite) std::cout << "  suite " << (suite = r.suite) << "\n";
      std::cout << "    " << std::left << std::setw(18) << (r.spawner_version.empty() ? "-" : r.spawner_version)
                << " " << std::setw(30) << r.run_id << std::right;
      for (const char* v : {"pass", "escape", "overblock", "broken", "error", "skip"})
        std::cout << " " << v << " " << r.summary.at(v);
      if (step.first) std::cout << "\n";
      else if (step.changed_total == 0) std::cout << "; no verdict changed\n";
      else std::cout << "; " << step.changed_total << " changed:\n";
      for (const auto& c : step.changed) std::cout << "        " << c << "\n";
      if (step.changed_total > step.changed.size())
        std::cout << "        and " << step.changed_total - step.changed.size() << " more (breakout diff)\n";
    }
    const auto latency = BenchHistory(path).latency_trend(t.history_trend, t.history_last);
    std::cout << "\nSpawn latency of " << t.history_trend << " per bench run (p50 of spawn/" << t.history_trend
              << ", oldest first):\n";
    if (latency.empty()) std::cout << "  no bench run (breakout bench --spawner " << t.history_trend << ")\n";
    for (const auto& p : latency) {
      std::cout << "  " << std::left << std::setw(22) << p.started << std::setw(30) << p.run_id << std::right
                << std::fixed << std::setprecision(3) << std::setw(10) << p.p50_ms << " ms";
      if (p.ratio_to_raw > 0) std::cout << std::setprecision(2) << std::setw(8) << p.ratio_to_raw << "x raw";
      std::cout << "\n";
    }
  }
  return 0;
}
#else
int cmd_history(const ToolCommands&) { throw Error("this build has no history database"); }
#endif

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw Error("cannot write " + path);
}

}  // namespace

int nothing_judged_status(const std::vector<AttemptRecord>& records, bool allow_all_skip) {
  const int rc = run_exit_status(records);
  if (rc != kExitLostCoverage) return rc;
  const std::string why = all_skipped_reason(records).value_or("nothing was judged");
  if (allow_all_skip) {
    std::cerr << "breakout: note: " << why << "; accepted (--allow-all-skip)\n";
    return 0;
  }
  std::cerr << "breakout: FAILED: " << why << ": no sandbox was tested (exit status " << kExitLostCoverage
            << "; --allow-all-skip accepts it)\n";
  return rc;
}

void write_run_report(const fs::path& out_dir) {
  try {
    ReportInput in;
    in.results = load_results(out_dir / "results.json");
    in.history_note = "not read by run: `breakout report` shows the trend";
    in.bench_note = "not read by run: `breakout report` shows the newest bench run";
    write_file((out_dir / "report.html").string(), html_report(in));
    write_file((out_dir / "summary.md").string(), markdown_summary(in));
  } catch (const std::exception& e) {
    std::cerr << "breakout: warning: report.html/summary.md not written: " << e.what() << "\n";
  }
}

namespace {

int cmd_report(const ToolCommands& t) {
  ReportInput in;
  in.results = load_run(t.report_run, t.report_history);
  if (!t.report_baseline.empty()) {
    const auto current = verdict_map(in.results);
    // Held here: a range-for over a member of the temporary load_baseline() returns would read it
    // after it is destroyed (the temporary lives only as long as the range expression before C++23).
    const nlohmann::json baseline = load_baseline(t.report_baseline);
    for (const auto& a : baseline.at("accepted")) {
      const std::string id = a.value("id", "");
      if (auto it = current.find(id); it != current.end() && it->second.verdict == a.value("verdict", ""))
        in.accepted.insert(id);
    }
  }
#ifdef BREAKOUT_HAVE_HISTORY
  if (t.report_history.off) {
    in.history_note = "history not read (--no-history)";
  } else {
    // Read only: a report never creates a history database.
    const fs::path path = history_path(t.report_history);
    if (!fs::exists(path)) {
      in.history_note = "no history at " + path.string();
    } else {
      for (const auto& p : History(path).escape_trend(in.results.info.spawner, 200))
        in.trend.push_back({p.run_id, p.started, p.escapes, p.executions});
      in.history_note = "from " + path.string();
    }
  }
#else
  in.history_note = "this build has no history database";
#endif
  add_bench_to_report(in, t.report_bench, t.report_history);
  write_file(t.report_out, html_report(in));
  std::cout << "breakout: report written to " << t.report_out << "\n";
  if (!t.report_markdown.empty()) {
    write_file(t.report_markdown, markdown_summary(in));
    std::cout << "breakout: Markdown summary written to " << t.report_markdown << "\n";
  }
  if (!t.report_sarif.empty()) {
    SarifOptions sarif;
    sarif.all = t.report_sarif_all;
    sarif.accepted = in.accepted;
    sarif.baseline = t.report_baseline;
    write_sarif(t.report_sarif, in.results.info, in.results.records, sarif);
    std::cout << "breakout: SARIF written to " << t.report_sarif << "\n";
  }
  return 0;
}

int cmd_baseline(const ToolCommands& t) {
  const auto b = baseline_json(load_results(t.baseline_results));
  std::ofstream out(t.baseline_out);
  out << b.dump(2) << "\n";
  if (!out) throw Error("cannot write " + t.baseline_out);
  std::cout << "breakout: baseline with " << b["accepted"].size() << " accepted findings written to " << t.baseline_out
            << "\n";
  return 0;
}

}  // namespace

std::optional<int> run_tool_commands(const ToolCommands& t) {
  if (*t.merge) return cmd_merge(t);
  if (*t.diff) return cmd_diff(t);
  if (*t.baseline) return cmd_baseline(t);
  if (*t.history) return cmd_history(t);
  if (*t.report) return cmd_report(t);
  return std::nullopt;
}

}  // namespace breakout
