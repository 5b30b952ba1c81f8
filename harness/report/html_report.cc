// The HTML report and the Markdown summary; every string from the results passes html_escape/markdown_escape.
#include "harness/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "harness/core/escape.h"
#include "harness/core/text.h"
#include "harness/report/causes.h"

namespace breakout {

namespace {

constexpr const char* kVerdictOrder[] = {"escape", "error", "broken", "overblock", "pass", "skip"};

// The worst verdict colours a matrix cell.
int severity(const std::string& v) {
  for (int i = 0; i < 6; ++i)
    if (v == kVerdictOrder[i]) return i;
  return 6;
}

std::string fmt(double v, int prec = 1) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(prec);
  o << v;
  return o.str();
}

constexpr const char* kCss = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.meta{color:#57606a}.meta code{color:#1b1f24}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.matrix td.cell{text-align:center;min-width:110px;font-weight:600}
.verdict-escape{background:#ffb3b3;color:#67000d}.verdict-error{background:#ffd8a8;color:#5c2b00}
.verdict-broken{background:#ffe3a3;color:#4d3800}.verdict-overblock{background:#fff3b0;color:#4d4200}
.verdict-pass{background:#c8f2c8;color:#0b4d0b}.verdict-skip{background:#e6e8eb;color:#424a53}
.verdict-none{background:#fff;color:#8c959f}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;font-weight:600}
.finding{border:1px solid #d0d7de;border-left:6px solid #cf222e;border-radius:4px;padding:8px 12px;margin:10px 0}
.finding.accepted{border-left-color:#8c959f}
pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:320px;white-space:pre-wrap;word-break:break-all;margin:4px 0}
.counts span{margin-right:10px}svg text{font:11px sans-serif;fill:#424a53}
.interrupted{border:1px solid #d0d7de;border-left:6px solid #bf8700;background:#fff8c5;padding:8px 12px;font-weight:600}
)css";

std::string badge(const std::string& verdict) {
  return "<span class=\"badge verdict-" + html_escape(verdict) + "\">" + html_escape(verdict) + "</span>";
}

std::string pre(const std::string& text) { return "<pre>" + html_escape(text) + "</pre>"; }

std::string json_text(const nlohmann::json& j) {
  return j.is_null() ? "(none)" : j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

void matrix(std::ostringstream& h, const Results& r) {
  std::vector<std::string> policies = r.info.policies;
  std::map<std::string, std::map<std::string, std::map<std::string, int>>> cells;  // class -> policy -> verdict -> n
  for (const auto& a : r.records) {
    ++cells[a.klass][a.policy][to_string(a.verdict)];
    if (std::find(policies.begin(), policies.end(), a.policy) == policies.end()) policies.push_back(a.policy);
  }
  h << "<h2>Matrix: attempt classes × policies</h2>\n<table class=\"matrix\"><tr><th>class</th>";
  for (const auto& p : policies) h << "<th>" << html_escape(p) << "</th>";
  h << "</tr>\n";
  for (const auto& [klass, row] : cells) {
    h << "<tr><th>" << html_escape(klass) << "</th>";
    for (const auto& p : policies) {
      auto it = row.find(p);
      if (it == row.end()) {
        h << "<td class=\"cell verdict-none\">–</td>";
        continue;
      }
      std::string worst = "skip";
      for (const auto& [v, n] : it->second)
        if (severity(v) < severity(worst)) worst = v;
      h << "<td class=\"cell verdict-" << html_escape(worst) << "\" data-class=\"" << html_escape(klass)
        << "\" data-policy=\"" << html_escape(p) << "\" title=\"" << html_escape(klass + " / " + p) << "\">";
      bool first = true;
      for (const char* v : kVerdictOrder)
        if (auto n = it->second.find(v); n != it->second.end()) {
          h << (first ? "" : "<br>") << n->second << " " << v;
          first = false;
        }
      h << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n";
}

void finding(std::ostringstream& h, const RunInfo& info, const AttemptRecord& a, bool accepted) {
  h << "<div class=\"finding" << (accepted ? " accepted" : "") << "\" id=\"" << html_escape(a.id) << "\">\n"
    << "<p>" << badge(to_string(a.verdict)) << " <code>" << html_escape(a.id) << "</code> — " << html_escape(a.title)
    << "</p>\n<p><b>Expected:</b> " << html_escape(a.expected) << " (" << html_escape(a.expected_why) << ")<br>"
    << "<b>Judged from outside:</b> " << html_escape(a.reason) << "</p>\n"
    << "<p><b>Outside evidence</b></p>" << pre(json_text(a.evidence))
    << "<p><b>The probe's own report</b> (shown, never decides)</p>" << pre(json_text(a.probe_report));
  if (!a.stdout_excerpt.empty()) h << "<p><b>stdout</b></p>" << pre(a.stdout_excerpt);
  if (!a.stderr_excerpt.empty()) h << "<p><b>stderr</b></p>" << pre(a.stderr_excerpt);
  if (!a.controls.empty()) {
    h << "<p><b>Controls:</b> ";
    for (const auto& c : a.controls) h << "<code>" << html_escape(c) << "</code> ";
    h << "</p>";
  }
  h << "<p><b>Reproduce</b></p>" << pre(reproduce_command(info, a.id)) << "</div>\n";
}

// A JSON value from a results file as text: strings as they are, the rest as JSON (escaped by the caller).
std::string cell_text(const nlohmann::json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// One recon execution (class recon, docs/probes.md): the verdict, the host's view beside the
// probe's own row by row (disagreements marked), the checks against the policy, the raw report.
void recon_record(std::ostringstream& h, const AttemptRecord& a) {
  h << "<p>" << badge(to_string(a.verdict)) << " <code>" << html_escape(a.id) << "</code> — "
    << html_escape(a.reason) << "</p>\n";
  const auto rows = a.evidence.find("side_by_side");
  if (rows != a.evidence.end() && rows->is_array() && !rows->empty()) {
    h << "<table class=\"recon\"><tr><th>field</th><th>inside (the probe's word)</th><th>outside (the host's view)</th>"
         "<th>agree</th></tr>\n";
    for (const auto& r : *rows) {
      if (!r.is_object()) continue;
      const bool agree = cell_text(r, "agree") == "true";
      h << "<tr" << (agree ? "" : " class=\"verdict-error\"") << "><td><code>" << html_escape(cell_text(r, "field"))
        << "</code></td><td>" << html_escape(cell_text(r, "inside")) << "</td><td>" << html_escape(cell_text(r, "outside"))
        << "</td><td>" << (agree ? "yes" : "NO") << "</td></tr>\n";
    }
    h << "</table>\n";
  }
  const auto checks = a.evidence.find("checks");
  if (checks != a.evidence.end() && checks->is_array())
    for (const auto& c : *checks)
      if (c.is_object())
        h << "<p><b>" << html_escape(cell_text(c, "outcome")) << ":</b> " << html_escape(cell_text(c, "promise"))
          << " — " << html_escape(cell_text(c, "detail")) << "</p>\n";
  h << "<p><b>The probe's own report</b> (shown, never decides)</p>" << pre(json_text(a.probe_report));
}

// The sandbox's own host changes (results.md, "Who changed the host"): what boot changed
// (evidence.setup of each execution, judged apart from the probe) and what a driver declared
// persistent, each distinct change once with the number of executions that showed it.
struct SetupSeen {
  std::map<std::string, std::map<std::string, int>> by_move;  // access move -> change text -> executions
  std::map<std::string, int> persistent;
  bool empty() const { return by_move.empty() && persistent.empty(); }
};

SetupSeen collect_setup(const Results& r) {
  SetupSeen seen;
  for (const auto& a : r.records) {
    if (const auto s = a.evidence.find("setup"); s != a.evidence.end() && s->is_object())
      if (const auto c = s->find("changes"); c != s->end() && c->is_array())
        for (const auto& ch : *c) {
          if (!ch.is_object()) continue;
          const std::string path = cell_text(ch, "path");
          ++seen.by_move[cell_text(ch, "access")]
                        [cell_text(ch, "change") + " " + (path.empty() ? "<tree root>" : path) + " (" +
                         cell_text(ch, "fields") + "; " + cell_text(ch, "why") + ")" +
                         (cell_text(ch, "outside_writable_roots") == "true" ? "" : " [inside a writable root]")];
        }
    if (const auto p = a.evidence.find("persistent_host_changes"); p != a.evidence.end() && p->is_array())
      for (const auto& ch : *p)
        if (ch.is_string()) ++seen.persistent[ch.get<std::string>()];
  }
  return seen;
}

void setup_changes(std::ostringstream& h, const Results& r) {
  const SetupSeen seen = collect_setup(r);
  if (seen.empty()) return;
  h << "<h2>The sandbox's own setup</h2>\n<p>Host changes the spawner made at boot (before boot → boot answered): "
       "never charged to a probe; <code>session.setup-widens-nothing</code> judges them, and they must be gone after "
       "shutdown unless declared persistent.</p>\n<table><tr><th>access</th><th>change</th><th>executions</th></tr>\n";
  for (const auto& [move, changes] : seen.by_move)
    for (const auto& [text, n] : changes)
      h << "<tr" << (move == "widens" ? " class=\"verdict-escape\"" : "") << "><td>" << html_escape(move)
        << "</td><td><code>" << html_escape(text) << "</code></td><td>" << n << "</td></tr>\n";
  for (const auto& [text, n] : seen.persistent)
    h << "<tr><td>persistent (declared)</td><td><code>" << html_escape(text) << "</code></td><td>" << n
      << "</td></tr>\n";
  h << "</table>\n";
}

// A histogram of exit.spawn_ms as inline SVG.
void latency(std::ostringstream& h, const Results& r) {
  std::vector<double> ms;
  for (const auto& a : r.records)
    if (auto it = a.exit.find("spawn_ms"); it != a.exit.end() && it->is_number()) ms.push_back(it->get<double>());
  h << "<h2>Spawn latency</h2>\n";
  if (ms.empty()) {
    h << "<p>No spawn timings in this run.</p>\n";
    return;
  }
  std::sort(ms.begin(), ms.end());
  const auto q = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(p * ms.size()))]; };
  h << "<p>" << ms.size() << " spawns: min " << fmt(ms.front()) << " ms, median " << fmt(q(0.5)) << " ms, p90 "
    << fmt(q(0.9)) << " ms, max " << fmt(ms.back()) << " ms</p>\n";
  const int bins = 20;
  const double lo = ms.front(), hi = std::max(ms.back(), lo + 0.001), width = (hi - lo) / bins;
  std::vector<int> counts(bins, 0);
  for (double v : ms) ++counts[std::min(bins - 1, static_cast<int>((v - lo) / width))];
  const int peak = *std::max_element(counts.begin(), counts.end());
  const int W = 640, H = 180, bw = (W - 40) / bins;
  h << "<svg class=\"histogram\" width=\"" << W << "\" height=\"" << H + 30 << "\" role=\"img\" aria-label=\"spawn_ms histogram\">";
  for (int i = 0; i < bins; ++i) {
    const int bh = peak ? counts[i] * H / peak : 0;
    h << "<rect x=\"" << 30 + i * bw << "\" y=\"" << H - bh << "\" width=\"" << bw - 2 << "\" height=\"" << bh
      << "\" fill=\"#54aeff\"><title>" << fmt(lo + i * width) << "–" << fmt(lo + (i + 1) * width) << " ms: "
      << counts[i] << "</title></rect>";
  }
  h << "<text x=\"30\" y=\"" << H + 15 << "\">" << fmt(lo) << " ms</text><text x=\"" << W - 80 << "\" y=\"" << H + 15
    << "\">" << fmt(hi) << " ms</text><text x=\"0\" y=\"12\">" << peak << "</text></svg>\n";
}

void trend(std::ostringstream& h, const ReportInput& in) {
  h << "<h2>Trend over the history</h2>\n";
  if (in.trend.empty()) {
    h << "<p>" << html_escape(in.history_note.empty() ? "No history." : in.history_note) << "</p>\n";
    return;
  }
  h << "<p>Escapes per run of <code>" << html_escape(in.results.info.spawner) << "</code>, oldest first ("
    << in.trend.size() << " runs; " << html_escape(in.history_note) << ")</p>\n";
  int peak = 1;
  for (const auto& p : in.trend) peak = std::max(peak, p.escapes);
  const int W = 640, H = 120;
  const double step = in.trend.size() > 1 ? double(W - 40) / double(in.trend.size() - 1) : 0;
  h << "<svg class=\"trend\" width=\"" << W << "\" height=\"" << H + 20 << "\" role=\"img\" aria-label=\"escape trend\"><polyline fill=\"none\" stroke=\"#cf222e\" stroke-width=\"2\" points=\"";
  for (std::size_t i = 0; i < in.trend.size(); ++i)
    h << fmt(20 + i * step) << "," << fmt(H - double(in.trend[i].escapes) * (H - 10) / peak) << " ";
  h << "\"/>";
  for (std::size_t i = 0; i < in.trend.size(); ++i)
    h << "<circle cx=\"" << fmt(20 + i * step) << "\" cy=\"" << fmt(H - double(in.trend[i].escapes) * (H - 10) / peak)
      << "\" r=\"3\" fill=\"#cf222e\"><title>" << html_escape(in.trend[i].run_id + " " + in.trend[i].started) << ": "
      << in.trend[i].escapes << " escapes of " << in.trend[i].executions << "</title></circle>";
  h << "<text x=\"0\" y=\"12\">" << peak << "</text><text x=\"0\" y=\"" << H << "\">0</text></svg>\n";
}

// x position of `ms` on a log axis from lo to hi over [x0, x0 + w]: spawn figures span 0.5 ms to seconds.
double log_x(double ms, double lo, double hi, double x0, double w) {
  const double l = std::log10(std::max(ms, lo)), a = std::log10(lo), b = std::log10(hi);
  return x0 + (b > a ? (l - a) / (b - a) : 0.5) * w;
}

// The figures of a `breakout bench` run: a table and a min–p99 range with the p50 marked, per benchmark.
void bench_figures(std::ostringstream& h, const ReportBench& b) {
  h << "<p>Bench run <code>" << html_escape(b.run_id) << "</code> of <code>" << html_escape(b.spawner) << "</code>, "
    << html_escape(b.started) << " (" << html_escape(b.source)
    << "). Ratios are to <code>spawn/raw</code> measured in the same run (docs/bench.md).</p>\n"
    << "<table class=\"bench-table\"><tr><th>benchmark</th><th>n</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th>"
       "<th>min ms</th><th>max ms</th><th>ratio to raw</th><th>status</th></tr>\n";
  double lo = 0, hi = 0;
  std::vector<const ReportBenchFigure*> drawn;
  for (const auto& f : b.figures) {
    const bool ok = f.status == "ok";
    h << "<tr><td><code>" << html_escape(f.name) << "</code></td><td>" << f.n << "</td>";
    for (double v : {f.p50_ms, f.p90_ms, f.p99_ms, f.min_ms, f.max_ms}) h << "<td>" << (ok ? fmt(v, 3) : "") << "</td>";
    h << "<td>"
      << (f.bytes_per_second > 0 ? fmt(f.bytes_per_second / 1e6) + " MB/s" : f.ratio_to_raw > 0 ? fmt(f.ratio_to_raw, 2) : "")
      << "</td><td>" << html_escape(f.status) << (f.reason.empty() ? "" : ": " + html_escape(f.reason)) << "</td></tr>\n";
    if (!ok || !(f.min_ms > 0) || !(f.p99_ms >= f.min_ms)) continue;
    lo = drawn.empty() ? f.min_ms : std::min(lo, f.min_ms);
    hi = drawn.empty() ? f.p99_ms : std::max(hi, f.p99_ms);
    drawn.push_back(&f);
  }
  h << "</table>\n";
  if (drawn.empty()) return;
  lo /= 1.5, hi *= 1.5;
  const int W = 640, row = 22, x0 = 190, w = W - x0 - 20, H = static_cast<int>(drawn.size()) * row + 24;
  h << "<svg class=\"bench-chart\" width=\"" << W << "\" height=\"" << H
    << "\" role=\"img\" aria-label=\"bench p50 with min to p99 range, log scale\">";
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    const auto& f = *drawn[i];
    const double y = 12 + static_cast<double>(i) * row;
    h << "<text x=\"0\" y=\"" << fmt(y + 4) << "\">" << html_escape(f.name.substr(0, 30)) << "</text>"
      << "<line x1=\"" << fmt(log_x(f.min_ms, lo, hi, x0, w)) << "\" x2=\"" << fmt(log_x(f.p99_ms, lo, hi, x0, w))
      << "\" y1=\"" << fmt(y) << "\" y2=\"" << fmt(y) << "\" stroke=\"#8c959f\" stroke-width=\"2\"/>"
      << "<circle cx=\"" << fmt(log_x(f.p50_ms, lo, hi, x0, w)) << "\" cy=\"" << fmt(y)
      << "\" r=\"5\" fill=\"#0969da\"><title>" << html_escape(f.name) << ": p50 " << fmt(f.p50_ms, 3) << " ms, min "
      << fmt(f.min_ms, 3) << ", p99 " << fmt(f.p99_ms, 3) << "</title></circle>";
  }
  h << "<text x=\"" << x0 << "\" y=\"" << H - 2 << "\">" << fmt(lo, 2) << " ms</text><text x=\"" << W - 90
    << "\" y=\"" << H - 2 << "\">" << fmt(hi, 1) << " ms (log)</text></svg>\n";
}

// p50 of spawn/<spawner> per bench run in the history.
void latency_trend(std::ostringstream& h, const ReportInput& in) {
  if (in.latency_trend.empty()) return;
  h << "<p>p50 of <code>spawn/" << html_escape(in.results.info.spawner) << "</code> per bench run, oldest first ("
    << in.latency_trend.size() << " runs)</p>\n";
  double peak = 0;
  for (const auto& p : in.latency_trend) peak = std::max(peak, p.p50_ms);
  if (!(peak > 0)) peak = 1;
  const int W = 640, H = 120;
  const auto n = in.latency_trend.size();
  const double step = n > 1 ? double(W - 40) / double(n - 1) : 0;
  const auto y = [&](double v) { return fmt(H - v * (H - 10) / peak); };
  h << "<svg class=\"latency-trend\" width=\"" << W << "\" height=\"" << H + 20
    << "\" role=\"img\" aria-label=\"spawn latency trend\"><polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\" points=\"";
  for (std::size_t i = 0; i < n; ++i) h << fmt(20 + double(i) * step) << "," << y(in.latency_trend[i].p50_ms) << " ";
  h << "\"/>";
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = in.latency_trend[i];
    h << "<circle cx=\"" << fmt(20 + double(i) * step) << "\" cy=\"" << y(p.p50_ms) << "\" r=\"3\" fill=\"#0969da\"><title>"
      << html_escape(p.run_id + " " + p.started) << ": p50 " << fmt(p.p50_ms, 3) << " ms, p99 " << fmt(p.p99_ms, 3)
      << " ms" << (p.ratio_to_raw > 0 ? ", " + fmt(p.ratio_to_raw, 2) + "x raw" : "") << "</title></circle>";
  }
  h << "<text x=\"0\" y=\"12\">" << fmt(peak, 2) << " ms</text><text x=\"0\" y=\"" << H << "\">0</text></svg>\n";
}

void bench(std::ostringstream& h, const ReportInput& in) {
  h << "<h2 id=\"bench\">Spawn-latency benchmark</h2>\n";
  if (in.bench) bench_figures(h, *in.bench);
  else h << "<p>" << html_escape(in.bench_note.empty() ? "No bench run." : in.bench_note) << "</p>\n";
  latency_trend(h, in);
}

// A code span shows its content literally (no HTML, no Markdown); only a backtick or newline could end it.
std::string code_span(const std::string& s) {
  if (s.find_first_of("`\n\r") != std::string::npos) return markdown_escape(s);
  return "`" + s + "`";
}

// One example of what the harness launched: the first execution that ran (the argv differs per
// execution only in its paths and nonce).
std::string example_argv(const Results& r) {
  for (const auto& a : r.records)
    if (!a.spawner_argv.empty()) {
      std::string line;
      for (const auto& arg : a.spawner_argv) line += (line.empty() ? "" : " ") + shell_quote(arg);
      return line;
    }
  return "";
}

void sandbox_section(std::ostringstream& h, const Results& r) {
  const RunInfo& i = r.info;
  h << "<h2 id=\"sandbox\">The sandbox under test</h2>\n<p>" << html_escape(i.spawner_description) << "</p>\n";
  if (!i.spawner_notes.empty())
    h << "<p><b>What the profile says it cannot do, or does by design</b> (its notes)</p>" << pre(i.spawner_notes);
  if (const std::string argv = example_argv(r); !argv.empty())
    h << "<p><b>What the harness launched</b> (one execution; paths and nonce differ per execution)</p>" << pre(argv);
  if (const auto lines = residue_lines(i.residue); !lines.empty()) {
    h << "<p><b>What the spawner itself left behind</b> (its own files in /tmp, /dev/shm, /run and processes "
         "still running after the spawn; a hygiene finding, not a verdict)</p>\n<ul>\n";
    for (const auto& line : lines) h << "<li>" << html_escape(line) << "</li>\n";
    h << "</ul>\n";
  }
}

// One row per cause: the count, what they share, and the ids (links to the findings below).
void causes_table(std::ostringstream& h, const std::vector<const AttemptRecord*>& findings) {
  const auto causes = group_by_cause(findings);
  h << "<h2 id=\"causes\">Findings by cause (" << causes.size() << " causes, " << findings.size()
    << " findings)</h2>\n";
  if (causes.empty()) {
    h << "<p>No findings.</p>\n";
    return;
  }
  h << "<table><tr><th>n</th><th>verdict</th><th>class</th><th>policy</th><th>what they share</th><th>executions</th></tr>\n";
  for (const auto& c : causes) {
    h << "<tr><td>" << c.ids.size() << "</td><td>" << badge(c.verdict) << "</td><td>" << html_escape(c.klass)
      << "</td><td>" << html_escape(c.policy) << "</td><td>" << html_escape(c.signature) << "</td><td>";
    for (const auto& id : c.ids) h << "<a href=\"#" << html_escape(id) << "\"><code>" << html_escape(id) << "</code></a> ";
    h << "</td></tr>\n";
  }
  h << "</table>\n";
}

}  // namespace

std::string reproduce_command(const RunInfo& info, const std::string& execution_id) {
  // As given to the run: a profile or suite passed as a path is only found again by that path.
  // A driver run records "--driver CMD" (harness/cli/main.cc): that is an option of its own, not a spawner name.
  const std::string_view kDriver = "--driver ";
  const std::string& spawner = info.spawner_arg.empty() ? info.spawner : info.spawner_arg;
  const std::string how = spawner.rfind(kDriver, 0) == 0 ? "--driver " + shell_quote(spawner.substr(kDriver.size()))
                                                          : "--spawner " + shell_quote(spawner);
  const std::string& suite = info.suite_arg.empty() ? info.suite : info.suite_arg;
  return "breakout run " + how + " --suite " + shell_quote(suite) +
         (info.real_host ? " --real-host" : "") + " --only " + shell_quote(execution_id);
}

std::string html_report(const ReportInput& in) {
  const Results& r = in.results;
  const RunInfo& i = r.info;
  std::map<std::string, int> counts;
  for (const auto& a : r.records) ++counts[to_string(a.verdict)];
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
    << "<title>breakout report: " << html_escape(i.suite + " vs " + i.spawner) << "</title>\n<style>" << kCss
    << "</style></head><body>\n<h1>breakout: " << html_escape(i.suite) << " suite against "
    << html_escape(i.spawner) << "</h1>\n<p class=\"meta\">run <code>" << html_escape(i.run_id) << "</code> · "
    << (i.spawner_version.empty() ? "" : html_escape(i.spawner_version) + " · ") << "breakout " << html_escape(i.breakout_version)
    << (i.commit.empty() ? "" : " (" + html_escape(i.commit) + ")") << " · " << html_escape(i.platform) << " "
    << html_escape(i.kernel) << " on " << html_escape(i.host) << " · " << html_escape(i.started_utc) << " · "
    << fmt(i.wall_seconds) << " s" << (i.shard.empty() ? "" : " · shard " + html_escape(i.shard))
    << (i.merged_from.empty() ? "" : " · merged from " + std::to_string(i.merged_from.size()) + " shards") << "</p>\n";
  if (const std::string line = interrupted_line(i, r.records.size()); !line.empty())
    h << "<p class=\"interrupted\">Partial report: " << html_escape(line)
      << ". The run was stopped (SIGINT/SIGTERM); the executions not judged are absent, not passed.</p>\n";
  h << "<p class=\"counts\">";
  for (const char* v : kVerdictOrder) h << "<span>" << badge(v) << " " << counts[v] << "</span>";
  h << "</p>\n";
  matrix(h, r);

  std::vector<const AttemptRecord*> escapes, accepted, other, controls, recon;
  for (const auto& a : r.records) {
    const bool fail = a.verdict != Verdict::kPass && a.verdict != Verdict::kSkip;
    if (fail && in.accepted.count(a.id)) accepted.push_back(&a);
    else if (a.verdict == Verdict::kEscape) escapes.push_back(&a);
    else if (fail) other.push_back(&a);
    if (a.role == "allow") controls.push_back(&a);
    if (a.probe == "recon") recon.push_back(&a);
  }
  sandbox_section(h, r);
  std::vector<const AttemptRecord*> findings = escapes;
  findings.insert(findings.end(), other.begin(), other.end());
  causes_table(h, findings);
  h << "<h2 id=\"escapes\">Escapes (" << escapes.size() << ")</h2>\n";
  if (escapes.empty()) h << "<p>No escape.</p>\n";
  for (const auto* a : escapes) finding(h, i, *a, false);
  h << "<h2>Other findings: overblock, broken, error (" << other.size() << ")</h2>\n";
  for (const auto* a : other) finding(h, i, *a, false);
  if (!accepted.empty() || !in.accepted.empty()) {
    h << "<h2>Accepted by the baseline (" << accepted.size() << ")</h2>\n";
    for (const auto* a : accepted) finding(h, i, *a, true);
  }
  h << "<h2>Controls (" << controls.size() << ")</h2>\n<p>Allowed targets paired with each denial: a denial "
       "counts only if its controls passed.</p>\n<table><tr><th>control</th><th>verdict</th><th>reason</th></tr>\n";
  for (const auto* a : controls)
    h << "<tr><td><code>" << html_escape(a->id) << "</code></td><td>" << badge(to_string(a->verdict)) << "</td><td>"
      << html_escape(a->reason) << "</td></tr>\n";
  h << "</table>\n<h2>Sandbox recon</h2>\n";
  if (recon.empty()) h << "<p>No recon probe in this run.</p>\n";
  for (const auto* a : recon) recon_record(h, *a);
  setup_changes(h, r);
  latency(h, r);
  bench(h, in);
  trend(h, in);
  h << "<h2>Every execution (" << r.records.size() << ")</h2>\n<table><tr><th>id</th><th>verdict</th><th>ms</th>"
       "<th>reason</th></tr>\n";
  for (const auto& a : r.records)
    h << "<tr><td><code>" << html_escape(a.id) << "</code></td><td>" << badge(to_string(a.verdict)) << "</td><td>"
      << fmt(a.duration_ms) << "</td><td>" << html_escape(a.reason) << "</td></tr>\n";
  h << "</table>\n</body></html>\n";
  return h.str();
}

std::string markdown_summary(const ReportInput& in) {
  const Results& r = in.results;
  std::map<std::string, int> counts;
  for (const auto& a : r.records) ++counts[to_string(a.verdict)];
  std::ostringstream m;
  m << "## breakout: " << markdown_escape(r.info.suite) << " suite against " << markdown_escape(r.info.spawner)
    << "\n\n| pass | escape | overblock | broken | error | skip |\n|---|---|---|---|---|---|\n|";
  for (const char* v : {"pass", "escape", "overblock", "broken", "error", "skip"}) m << " " << counts[v] << " |";
  m << "\n\nRun " << markdown_escape(r.info.run_id) << ", " << r.records.size() << " executions in "
    << fmt(r.info.wall_seconds) << " s.\n";
  if (const std::string line = interrupted_line(r.info, r.records.size()); !line.empty())
    m << "\n**Partial: " << line << "** (the run was stopped; the executions not judged are absent, not passed).\n";
  // Findings by cause: one line per cause with its count and ids (causes.h); baseline-accepted
  // ones apart, as in the HTML report.
  std::vector<const AttemptRecord*> fresh, accepted;
  for (const auto& a : r.records)
    if (a.verdict != Verdict::kPass && a.verdict != Verdict::kSkip) (in.accepted.count(a.id) ? accepted : fresh).push_back(&a);
  for (const auto* list : {&fresh, &accepted}) {
    if (list->empty()) continue;
    const auto causes = group_by_cause(*list);
    m << "\n### " << (list == &fresh ? "Findings" : "Accepted by the baseline") << " (" << list->size() << ", "
      << causes.size() << (causes.size() == 1 ? " cause" : " causes") << ")\n\n";
    int shown = 0;
    for (const auto& c : causes) {
      if (++shown > 50) {
        m << "\n…and more; see the HTML report.\n";
        break;
      }
      std::string ids;
      for (std::size_t k = 0; k < c.ids.size() && k < 12; ++k) ids += (k ? ", " : "") + code_span(c.ids[k]);
      if (c.ids.size() > 12) ids += ", …";
      m << "- **" << c.verdict << "** ×" << c.ids.size() << " " << markdown_escape(c.klass) << " under "
        << markdown_escape(c.policy) << ": " << markdown_escape(shorten(c.first->reason, 300)) << "  \n  "
        << ids << "  \n  reproduce: " << code_span(reproduce_command(r.info, c.ids.front())) << "\n";
    }
  }
  if (fresh.empty() && accepted.empty()) m << "\nNo findings.\n";
  if (!r.info.spawner_notes.empty()) {
    m << "\n### What the profile says " << markdown_escape(r.info.spawner) << " cannot do, or does by design\n\n";
    std::size_t from = 0;
    while (from < r.info.spawner_notes.size()) {
      const std::size_t nl = r.info.spawner_notes.find('\n', from);
      const std::string line = r.info.spawner_notes.substr(from, nl == std::string::npos ? std::string::npos : nl - from);
      m << "> " << markdown_escape(line) << "  \n";
      if (nl == std::string::npos) break;
      from = nl + 1;
    }
  }
  if (const std::string argv = example_argv(r); !argv.empty())
    m << "\nLaunched (one execution): " << markdown_escape(shorten(argv, 1000)) << "\n";  // argv may hold markup

  if (const SetupSeen seen = collect_setup(r); !seen.empty()) {
    m << "\n### The sandbox's own setup (boot; never charged to a probe)\n\n";
    for (const auto& [move, changes] : seen.by_move)
      for (const auto& [text, n] : changes)
        m << "- " << markdown_escape(move) << ": " << code_span(text) << " (" << n << " executions)\n";
    for (const auto& [text, n] : seen.persistent)
      m << "- persistent (declared): " << code_span(text) << " (" << n << " executions)\n";
  }
  if (const auto lines = residue_lines(r.info.residue); !lines.empty()) {
    m << "\n### What " << markdown_escape(r.info.spawner) << " itself left behind (hygiene, not a verdict)\n\n";
    for (const auto& line : lines) m << "- " << markdown_escape(line) << "\n";
  }
  if (in.bench) {
    m << "\n### Spawn latency (bench run " << markdown_escape(in.bench->run_id)
      << ")\n\n| benchmark | n | p50 ms | p99 ms | ratio to raw |\n|---|---|---|---|---|\n";
    for (const auto& f : in.bench->figures)
      m << "| " << markdown_escape(f.name) << " | " << f.n << " | "
        << (f.status == "ok" ? fmt(f.p50_ms, 3) + " | " + fmt(f.p99_ms, 3) : markdown_escape(f.status) + " | ") << " | "
        << (f.bytes_per_second > 0 ? fmt(f.bytes_per_second / 1e6) + " MB/s" : f.ratio_to_raw > 0 ? fmt(f.ratio_to_raw, 2) : "")
        << " |\n";
  }
  return m.str();
}

}  // namespace breakout
