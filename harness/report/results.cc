// results.json, junit.xml and the summary table; all text from the sandbox is already printable-escaped.
#include "harness/report/results.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/report/color.h"

namespace breakout {

namespace fs = std::filesystem;

std::map<std::string, int> count_verdicts(const std::vector<AttemptRecord>& records) {
  std::map<std::string, int> counts;
  for (Verdict v : {Verdict::kPass, Verdict::kEscape, Verdict::kOverblock, Verdict::kBroken, Verdict::kError,
                    Verdict::kSkip})
    counts[to_string(v)] = 0;
  for (const auto& r : records) ++counts[to_string(r.verdict)];
  return counts;
}

int run_exit_status(const std::vector<AttemptRecord>& records) {
  bool escape = false, failing = false;
  for (const auto& r : records) {
    escape = escape || r.verdict == Verdict::kEscape;
    failing = failing || (r.verdict != Verdict::kPass && r.verdict != Verdict::kSkip);
  }
  return escape ? 3 : failing ? 1 : all_skipped_reason(records) ? kExitLostCoverage : 0;
}

std::optional<std::string> all_skipped_reason(const std::vector<AttemptRecord>& records) {
  if (records.empty()) return "no execution ran, so nothing was judged";
  for (const auto& r : records)
    if (r.verdict != Verdict::kSkip) return std::nullopt;
  return "every execution (" + std::to_string(records.size()) + ") skipped, so nothing was judged";
}

std::string interrupted_line(const RunInfo& info, std::size_t judged) {
  if (!info.interrupted) return "";
  return "interrupted: " + std::to_string(judged) + " of " + std::to_string(std::max(info.planned, judged)) +
         " executions judged";
}

nlohmann::json results_json(const RunInfo& info, const std::vector<AttemptRecord>& records) {
  nlohmann::json attempts = nlohmann::json::array();
  for (const auto& r : records) {
    attempts.push_back({{"id", r.id},
                        {"group", r.group},
                        {"attempt", r.attempt_id},
                        {"title", r.title},
                        {"description", r.description},
                        {"reference", r.reference},
                        {"class", r.klass},
                        {"policy", r.policy},
                        {"target", r.target},
                        {"role", r.role},
                        {"expected", r.expected},
                        {"expected_why", r.expected_why},
                        {"probe", r.probe},
                        {"probe_argv", r.probe_argv},
                        {"spawner_argv", r.spawner_argv},
                        {"verdict", to_string(r.verdict)},
                        {"reason", r.reason},
                        {"evidence", r.evidence},
                        {"controls", r.controls},
                        {"exit", r.exit},
                        {"probe_report", r.probe_report},
                        {"stdout_excerpt", r.stdout_excerpt},
                        {"stderr_excerpt", r.stderr_excerpt},
                        {"duration_ms", r.duration_ms}});
    if (!r.source_file.empty())
      attempts.back()["source"] = {{"file", r.source_file}, {"line", r.source_line}};
  }
  return {{"schema", "breakout.results/1"},
          {"run",
           {{"id", info.run_id},
            {"suite", info.suite},
            {"policies", info.policies},
            {"spawner", {{"name", info.spawner}, {"version", info.spawner_version}, {"description", info.spawner_description},
                         {"notes", info.spawner_notes}, {"arg", info.spawner_arg}}},
            {"suite_arg", info.suite_arg},
            {"real_host", info.real_host},
            {"breakout_version", info.breakout_version},
            {"commit", info.commit},
            {"shard", info.shard.empty() ? nlohmann::json() : nlohmann::json(info.shard)},
            {"merged_from", info.merged_from},
            {"platform", info.platform},
            {"kernel", info.kernel},
            {"host", info.host},
            {"started", info.started_utc},
            {"finished", info.finished_utc},
            {"wall_seconds", info.wall_seconds},
            {"jobs", info.jobs},
            {"spawner_residue", residue_json(info.residue)}}},
          {"interrupted", info.interrupted},
          {"planned", std::max(info.planned, records.size())},
          {"summary", count_verdicts(records)},
          {"exit_status", info.interrupted ? 130 : run_exit_status(records)},
          {"attempts", attempts}};
}

std::string junit_xml(const RunInfo& info, const std::vector<AttemptRecord>& records) {
  const auto counts = count_verdicts(records);
  const int failures = counts.at("escape") + counts.at("overblock") + counts.at("broken");
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // An interrupted run: one more testcase, an error, so a CI view never shows the partial run as green.
  const std::string interrupted = interrupted_line(info, records.size());
  const int extra = interrupted.empty() ? 0 : 1;
  x << "<testsuites name=\"breakout\">\n";
  x << "  <testsuite name=\"" << xml_escape("breakout." + info.suite + "." + info.spawner) << "\" tests=\""
    << records.size() + extra << "\" failures=\"" << failures << "\" errors=\"" << counts.at("error") + extra
    << "\" skipped=\"" << counts.at("skip") << "\" time=\"" << std::fixed << std::setprecision(3) << info.wall_seconds
    << "\">\n";
  if (!interrupted.empty()) {
    x << "    <properties>\n      <property name=\"interrupted\" value=\"true\"/>\n      <property name=\"planned\" value=\""
      << std::max(info.planned, records.size()) << "\"/>\n      <property name=\"judged\" value=\"" << records.size()
      << "\"/>\n    </properties>\n";
    x << "    <testcase classname=\"breakout\" name=\"run interrupted\" time=\"0\">\n      <error type=\"interrupted\" message=\""
      << xml_escape(interrupted + "; the rest did not run (SIGINT/SIGTERM)") << "\"/>\n    </testcase>\n";
  }
  for (const auto& r : records) {
    const std::string classname = r.attempt_id + "@" + r.policy;
    const std::string name = r.target.empty() ? r.klass : r.target;
    x << "    <testcase classname=\"" << xml_escape(classname) << "\" name=\"" << xml_escape(name) << "\" time=\""
      << std::setprecision(3) << r.duration_ms / 1000.0 << "\">\n";
    const std::string msg = xml_escape(r.reason);
    switch (r.verdict) {
      case Verdict::kPass: break;
      case Verdict::kSkip: x << "      <skipped message=\"" << msg << "\"/>\n"; break;
      case Verdict::kError: x << "      <error type=\"error\" message=\"" << msg << "\"/>\n"; break;
      default:
        x << "      <failure type=\"" << to_string(r.verdict) << "\" message=\"" << msg << "\">"
          << xml_escape(r.title + "\nexpected: " + r.expected + " (" + r.expected_why + ")\nevidence: " +
                        printable_excerpt(r.evidence.dump(), 4096))
          << "</failure>\n";
    }
    x << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

namespace {

void print_residue(std::ostream& out, const ResidueFindings& f) {
  const auto lines = residue_lines(f);
  if (lines.empty()) return;
  out << "\nLeft behind by the spawner itself (hygiene, not a verdict):\n";
  for (std::size_t i = 0; i < lines.size() && i < 12; ++i) out << "  " << shorten(lines[i], 300) << "\n";
}

}  // namespace

namespace {

// `text` right-aligned in `width` columns, then painted: the escape codes must not count as width.
std::string cell(const std::string& verdict, const std::string& text, int width, bool color) {
  const std::string padded = std::string(text.size() < static_cast<std::size_t>(width) ? width - text.size() : 0, ' ') + text;
  return text == "-" ? padded : paint_verdict(verdict, padded, color);
}

}  // namespace

void print_summary(std::ostream& out, const RunInfo& info, const std::vector<AttemptRecord>& records,
                   const fs::path& out_dir, bool color) {
  out << "\nbreakout " << info.suite << " suite against " << info.spawner
      << (info.spawner_version.empty() ? "" : " (" + info.spawner_version + ")") << ", " << records.size()
      << " attempts in " << std::fixed << std::setprecision(1) << info.wall_seconds << " s\n";
  const std::string interrupted = interrupted_line(info, records.size());
  if (!interrupted.empty()) out << "PARTIAL, " << interrupted << "; the rest did not run\n";
  out << "\n";
  // Per class x policy table: counts of each verdict.
  std::map<std::string, std::map<std::string, int>> table;
  for (const auto& r : records) ++table[r.klass + " / " + r.policy][to_string(r.verdict)];
  const char* cols[] = {"pass", "escape", "overblock", "broken", "error", "skip"};
  out << std::left << std::setw(34) << "class / policy";
  for (auto c : cols) out << std::right << std::setw(10) << c;
  out << "\n";
  for (const auto& [row, counts] : table) {
    out << std::left << std::setw(34) << row;
    for (auto c : cols) {
      auto it = counts.find(c);
      out << cell(c, it == counts.end() ? std::string("-") : std::to_string(it->second), 10, color);
    }
    out << "\n";
  }
  bool header = false;
  for (const auto& r : records) {
    if (r.verdict == Verdict::kPass || r.verdict == Verdict::kSkip) continue;
    if (!header) out << "\nFindings:\n", header = true;
    std::string word = to_string(r.verdict);
    word.resize(std::max<std::size_t>(word.size(), 9), ' ');
    out << "  " << paint_verdict(to_string(r.verdict), word, color) << " " << r.id << "\n            "
        << shorten(printable_excerpt(r.reason, 2048), 300) << "\n";
  }
  std::map<std::string, int> skip_reasons;
  for (const auto& r : records)
    if (r.verdict == Verdict::kSkip) ++skip_reasons[r.reason];
  if (!skip_reasons.empty()) out << "\nSkipped (never counted as pass):\n";
  for (const auto& [why, n] : skip_reasons) out << "  " << n << " x " << shorten(printable_excerpt(why, 2048), 300) << "\n";
  const auto counts = count_verdicts(records);
  print_residue(out, info.residue);
  out << "\nTotal:";
  for (auto c : cols) {
    const std::string n_c = std::to_string(counts.at(c)) + " " + c;
    out << " " << (counts.at(c) > 0 ? paint_verdict(c, n_c, color) : n_c) << (c == cols[5] ? "" : ",");
  }
  if (!interrupted.empty()) out << "\n" << interrupted << " (partial results, exit status 130)";
  out << "\nResults: " << (out_dir / "results.json").string() << "\n         " << (out_dir / "junit.xml").string()
      << "\n         " << (out_dir / "results.sarif").string()
      << "\nReport:  " << (out_dir / "report.html").string() << "\n         " << (out_dir / "summary.md").string()
      << "\n";
}

void write_results(const fs::path& dir, const RunInfo& info, const std::vector<AttemptRecord>& records) {
  fs::create_directories(dir);
  {
    std::ofstream json(dir / "results.json");
    json << results_json(info, records).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!json) throw Error("cannot write " + (dir / "results.json").string());
  }
  std::ofstream xml(dir / "junit.xml");
  xml << junit_xml(info, records);
  if (!xml) throw Error("cannot write " + (dir / "junit.xml").string());
}

}  // namespace breakout
