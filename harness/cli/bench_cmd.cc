// CLI glue for `breakout bench`; measuring lives in harness/bench, storage in harness/history/bench_history.
#include "harness/cli/bench_cmd.h"

#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <thread>

#include "harness/bench/bench_doc.h"
#include "harness/bench/bench_run.h"
#include "harness/bench/compare.h"
#include "harness/bench/spawn_probe.h"
#include "harness/cli/tools.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/platform/os.h"
#include "harness/report/html_report.h"
#include "harness/spawner/driver_spawner.h"
#include "harness/spawner/spawner.h"
#ifdef BREAKOUT_HAVE_HISTORY
#include "harness/history/bench_history.h"
#include "harness/history/history.h"
#endif

#ifndef BREAKOUT_VERSION
#define BREAKOUT_VERSION "0.1.0"
#endif
#ifndef BREAKOUT_COMMIT
#define BREAKOUT_COMMIT ""
#endif

namespace breakout {

namespace fs = std::filesystem;
using namespace breakout::bench;

struct BenchCommand {
  CLI::App* app = nullptr;
  std::string spawner, driver, out, baseline, only, policy = "workspace-write";
  std::vector<std::string> also;  // further spawners measured in the same run
  std::string versus;  // hidden, for tests: a second profile measured in the same run and compared with --spawner
  Settings settings;
  CompareOptions compare;
  long long pipe_bytes = 8 << 20;
  HistoryOptions history;
};

std::shared_ptr<BenchCommand> add_bench_command(CLI::App& app) {
  auto c = std::make_shared<BenchCommand>();
  c->app = app.add_subcommand("bench", "spawn-latency benchmarks: raw spawn, the none spawner and SPAWNER, "
                                       "with percentiles, the ratio to raw, JSON and a baseline compare");
  CLI::App* b = c->app;
  b->add_option("--driver", c->driver, "a driver command (protocol v1, docs/drivers.md); replaces --spawner");
  b->add_option("--spawner", c->spawner, "none, a profile name (bwrap, firejail) or a profile .toml path");
  b->add_option("--also", c->also, "further spawners measured in the same, interleaved run (repeatable)");
  b->add_option("--out", c->out, "breakout.bench/1 JSON file (default breakout-results/<run-id>-<spawner>-bench.json)");
  b->add_option("--repetitions", c->settings.repetitions,
                "repetitions per benchmark (>= 9 for a Mann-Whitney verdict)")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  b->add_option("--min-time", c->settings.min_time_s, "seconds of spawning per repetition (at least one spawn)")
      ->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  b->add_option("--budget", c->settings.budget_s, "seconds per benchmark, calibration included")
      ->capture_default_str()->check(CLI::Range(0.0, 86400.0));
  b->add_option("--spawn-timeout", c->settings.spawn_timeout_s, "seconds one spawn may take before the benchmark fails")
      ->capture_default_str()->check(CLI::Range(0.1, 86400.0));
  b->add_option("--baseline", c->baseline, "compare with this breakout.bench/1 file (or a bench run id in the history)");
  b->add_option("--alpha", c->compare.alpha, "significance level of the compare")->capture_default_str()->check(
      CLI::Range(0.0001, 0.5));
  b->add_option("--min-change", c->compare.min_change,
                "flag only slowdowns of the median larger than this fraction (0.10 = 10 %)")
      ->capture_default_str()->check(CLI::Range(0.0, 100.0));
  b->add_option("--only", c->only, "glob on benchmark names (spawn/none, spawn/bwrap, pipe/bwrap); spawn/raw always runs");
  b->add_option("--policy", c->policy, "policy name (scenarios/policies) or .toml path the spawner confines the probe with")
      ->capture_default_str();
  b->add_option("--pipe-bytes", c->pipe_bytes, "bytes per stream for the pipe benchmark")->capture_default_str()->check(
      CLI::Range(1LL, 1LL << 30));
  // Hidden (empty group): two real measurements interleaved in ONE run, so machine load
  // hits both alike; tests/e2e/test_bench.py compares a fixture with a slower copy of itself.
  b->add_option("--versus", c->versus, "testing: also measure this profile and compare it with --spawner")->group("");
  add_history_options(b, c->history);
  b->footer("Examples:\n"
            "  breakout bench --spawner bwrap\n"
            "  breakout bench --spawner bwrap --baseline breakout-results/last-bench.json\n"
            "Exit status: 0 measured (and no significant slowdown against --baseline), 4 a significant slowdown,\n"
            "1 a benchmark failed, 2 usage or configuration error, 130 interrupted. See docs/bench.md.");
  return c;
}

namespace {

std::atomic<bool> g_bench_interrupted{false};

std::string utc_now(const char* fmt) {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, std::gmtime(&t));
  return buf;
}

Policy load_bench_policy(const std::string& spec, const fs::path& scenarios) {
  const fs::path p = spec.find('/') != std::string::npos || spec.ends_with(".toml")
                         ? fs::path(spec) : scenarios / "policies" / (spec + ".toml");
  return load_policy_file(p);
}

// Without ".exe" on Windows too: the launchers append it (platform/win/launch.h resolve_program).
fs::path probe_path(const fs::path& probes, const std::string& name) {
  const fs::path p = probes / ("breakout-probe-" + name);
  check(fs::exists(p) || fs::exists(fs::path(p) += ".exe"), "probe not built: " + p.string());
  return p;
}

void print_table(std::ostream& out, const BenchDoc& doc) {
  out << "\nbreakout bench: " << doc.info.spawner << " (" << doc.info.spawner_version << "), policy "
      << doc.info.policy << ", run " << doc.info.run_id << "\n\n"
      << std::left << std::setw(24) << "benchmark" << std::right << std::setw(7) << "n" << std::setw(10) << "reps"
      << std::setw(10) << "p50 ms" << std::setw(10) << "p90 ms" << std::setw(10) << "p99 ms" << std::setw(10)
      << "min ms" << std::setw(10) << "max ms" << std::setw(9) << "x raw" << "  note\n";
  for (const auto& f : doc.figures) {
    out << std::left << std::setw(24) << f.name << std::right;
    if (f.status != "ok") {
      out << "  " << f.status << ": " << printable_excerpt(f.reason, 300) << "\n";
      continue;
    }
    std::ostringstream reps, ratio;
    reps << f.repetition_ms.size() << "x" << f.schedule.iterations;
    if (f.ratio_to_raw > 0) ratio << std::fixed << std::setprecision(2) << f.ratio_to_raw;
    else ratio << "-";
    out << std::setw(7) << f.ms.n << std::setw(10) << reps.str() << std::fixed << std::setprecision(3)
        << std::setw(10) << f.ms.p50 << std::setw(10) << f.ms.p90 << std::setw(10) << f.ms.p99 << std::setw(10)
        << f.ms.min << std::setw(10) << f.ms.max << std::setw(9) << ratio.str() << "  ";
    out.unsetf(std::ios::fixed);
    if (f.kind == "pipe") out << std::setprecision(4) << f.bytes_per_second / 1e6 << " MB/s ";
    out << f.reason << "\n";
  }
}

BenchDoc load_baseline_doc(const std::string& spec, const HistoryOptions& history) {
  if (fs::exists(spec)) return load_bench(spec);
#ifdef BREAKOUT_HAVE_HISTORY
  const fs::path path = history.path.empty() ? default_history_path() : fs::path(history.path);
  if (fs::exists(path)) return BenchHistory(path).load(spec);
  throw Error("no bench file '" + spec + "' (and no history at " + path.string() + ")");
#else
  (void)history;
  throw Error("no bench file '" + spec + "'");
#endif
}

void record_bench_history(const HistoryOptions& options, const BenchDoc& doc) {
#ifdef BREAKOUT_HAVE_HISTORY
  if (options.off) return;
  try {
    const fs::path path = options.path.empty() ? default_history_path() : fs::path(options.path);
    BenchHistory(path).record(doc);
    std::cout << "History: " << path.string() << " (bench run " << doc.info.run_id << ")\n";
  } catch (const std::exception& e) {
    std::cerr << "breakout: warning: bench run not recorded in the history: " << e.what() << "\n";
  }
#else
  (void)options, (void)doc;
#endif
}

// The benchmarks of one run: raw always (the ratio's denominator), then none, the spawner, its pipe.
std::vector<Case> make_cases(const BenchCommand& c, const Spawner& spawner, const Spawner& none,
                             const std::vector<std::unique_ptr<Spawner>>& also, const Spawner* versus,
                             const BenchTree& tree, const BenchDirs& dirs, const Policy& policy) {
  const std::vector<std::string> noop = {probe_path(dirs.probes, "noop").string()};
  const std::vector<std::string> flood = {probe_path(dirs.probes, "pipe-flood").string(), "--bytes",
                                          std::to_string(c.pipe_bytes)};
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(c.settings.spawn_timeout_s * 1000));
  std::vector<Case> cases;
  cases.push_back({"spawn/raw", "spawn", "raw", make_raw_target(tree, noop), "", 0});
  auto add = [&](const std::string& kind, const Spawner& s, const std::vector<std::string>& argv,
                 std::uint64_t bytes) {
    Case k{kind + "/" + s.name(), kind, s.name(), nullptr, "", bytes};
    if (!c.only.empty() && !glob_match(c.only, k.name) && kind != "versus") return;
    if (auto why = s.unavailable_reason()) k.skip_reason = "unavailable: " + *why;
    else if (auto cannot = s.cannot_express(policy)) k.skip_reason = "policy " + policy.name + ": " + *cannot;
    else k.target = std::make_shared<SpawnerTarget>(s, tree, argv, timeout, &g_bench_interrupted);
    cases.push_back(std::move(k));
  };
  add("spawn", none, noop, 0);
  if (spawner.name() != "none") add("spawn", spawner, noop, 0);
  if (spawner.has_sessions() && (c.only.empty() || glob_match(c.only, "boot/" + spawner.name()))) {
    Case k{"boot/" + spawner.name(), "boot", spawner.name(), nullptr, "", 0};
    if (auto why = spawner.unavailable_reason()) k.skip_reason = "unavailable: " + *why;
    else if (auto cannot = spawner.cannot_express(policy)) k.skip_reason = "policy " + policy.name + ": " + *cannot;
    else k.target = std::make_shared<SessionBootTarget>(spawner, tree, timeout, &g_bench_interrupted);
    cases.push_back(std::move(k));
  }
  add("pipe", spawner, flood, 2 * static_cast<std::uint64_t>(c.pipe_bytes));
  for (const auto& a : also) {
    if (a->name() == spawner.name() || a->name() == "none") continue;
    add("spawn", *a, noop, 0);
    add("pipe", *a, flood, 2 * static_cast<std::uint64_t>(c.pipe_bytes));
  }
  if (versus) add("versus", *versus, noop, 0);
  return cases;
}

// --versus: spawn/<S> of this run as the base, versus/<V> renamed to spawn/<S> as the new side.
Comparison compare_versus(const BenchDoc& doc, const std::string& spawner_name, const CompareOptions& options) {
  BenchDoc base, now;
  base.info = now.info = doc.info;
  for (const auto& f : doc.figures) {
    if (f.name == "spawn/" + spawner_name) base.figures.push_back(f);
    if (f.kind == "versus") {
      now.info.spawner = f.via;
      now.figures.push_back(f);
      now.figures.back().name = "spawn/" + spawner_name;
    }
  }
  return compare_bench(base, now, options);
}

int cmd_bench(const BenchCommand& c, const BenchDirs& dirs) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (auto why = run_unsupported_reason()) throw Error("breakout bench: " + *why);
  install_interrupt_flag(&g_bench_interrupted);
  check(c.spawner.empty() != c.driver.empty(), "breakout bench: give exactly one of --spawner and --driver");
  DriverSettings driver;
  if (!c.driver.empty()) {
    driver.argv = split_command_line(c.driver);
    driver.lookup_path = own_search_path();  // as for run (docs/drivers.md)
    if (auto why = driver_program_missing(driver.argv, *driver.lookup_path)) throw Error("bad-driver", "--driver: " + *why);
  }
  const auto spawner = c.driver.empty() ? make_spawner(c.spawner, dirs.spawners) : make_driver_spawner(driver);
  const auto none = make_none_spawner();
  const Policy policy = load_bench_policy(c.policy, dirs.scenarios);
  std::vector<std::unique_ptr<Spawner>> also;
  for (const auto& a : c.also) also.push_back(make_spawner(a, dirs.spawners));
  const auto versus = c.versus.empty() ? nullptr : make_spawner(c.versus, dirs.spawners);
  std::optional<BenchDoc> baseline;
  if (!c.baseline.empty()) baseline = load_baseline_doc(c.baseline, c.history);  // fail before measuring

  BenchDoc doc;
  BenchInfo& info = doc.info;
  info.run_id = utc_now("%Y%m%dT%H%M%SZ") + "-" + random_hex(3);
  info.spawner = spawner->name();
  info.spawner_version = spawner->version();
  info.spawner_description = spawner->description();
  info.spawner_arg = c.driver.empty() ? c.spawner : "--driver " + c.driver;
  info.policy = policy.name;
  info.probe = "breakout-probe-noop";
  info.breakout_version = BREAKOUT_VERSION;
  info.commit = BREAKOUT_COMMIT;
  info.platform = platform_name();
  info.kernel = kernel_release();
  info.host = host_name();
  info.cpus = static_cast<int>(std::thread::hardware_concurrency());
  info.started_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  info.settings = c.settings;

  BenchTree tree(policy);
  const auto cases = make_cases(c, *spawner, *none, also, versus.get(), tree, dirs, policy);
  std::cerr << "breakout: benchmarking " << cases.size() << " cases (" << c.settings.repetitions
            << " repetitions of >= " << c.settings.min_time_s << " s, budget " << c.settings.budget_s
            << " s each)\n";
  try {
    doc.figures = run_benchmarks(cases, c.settings, &g_bench_interrupted,
                                 [](const std::string& line) { std::cerr << "  " << line << "\n"; });
  } catch (const Error&) {
    if (!g_bench_interrupted) throw;
    std::cerr << "breakout: interrupted; nothing written\n";
    return 130;
  }
  info.finished_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  nlohmann::json out = bench_json(doc);
  std::optional<Comparison> cmp;
  if (baseline) cmp = compare_bench(*baseline, doc, c.compare);
  if (versus) cmp = compare_versus(doc, spawner->name(), c.compare);
  if (cmp) out["compare"] = comparison_json(*cmp);
  const fs::path out_path = c.out.empty() ? fs::path("breakout-results") / (info.run_id + "-" + info.spawner + "-bench.json")
                                          : fs::path(c.out);
  if (out_path.has_parent_path()) fs::create_directories(out_path.parent_path());
  std::ofstream file(out_path);
  file << out.dump(2) << "\n";
  if (!file) throw Error("cannot write " + out_path.string());
  file.close();

  print_table(std::cout, doc);
  if (cmp) {
    std::cout << "\n";
    print_comparison(std::cout, *cmp);
  }
  std::cout << "\nResults: " << out_path.string() << "\n";
  record_bench_history(c.history, doc);

  if (cmp && cmp->regression()) return cmp->gate_status();
  for (const auto& f : doc.figures)
    if (f.status == "error") return 1;
  return 0;
}

}  // namespace

std::optional<int> run_bench_command(const BenchCommand& c, const BenchDirs& dirs) {
  if (!*c.app) return std::nullopt;
  return cmd_bench(c, dirs);
}

namespace {

// A bench run named by SPEC: a breakout.bench/1 file, or (when no such path exists) a bench run id in
// the history. nullopt for anything else, e.g. a results file or a results run id.
std::optional<BenchDoc> find_bench_run(const std::string& spec, const HistoryOptions& history) {
  if (is_bench_file(spec)) return load_bench(spec);
  if (fs::exists(spec)) return std::nullopt;
#ifdef BREAKOUT_HAVE_HISTORY
  if (history.off) return std::nullopt;
  const fs::path path = history.path.empty() ? default_history_path() : fs::path(history.path);
  if (!fs::exists(path)) return std::nullopt;
  BenchHistory h(path);
  if (h.has(spec)) return h.load(spec);
#else
  (void)history;
#endif
  return std::nullopt;
}

ReportBench report_bench(const BenchDoc& doc, const std::string& source) {
  ReportBench b{doc.info.run_id, doc.info.spawner, doc.info.started_utc, source, {}};
  for (const auto& f : doc.figures)
    b.figures.push_back({f.name, f.status, f.reason, f.ms.n, f.ms.p50, f.ms.p90, f.ms.p99, f.ms.min, f.ms.max,
                         f.ratio_to_raw, f.kind == "pipe" ? f.bytes_per_second : 0});
  return b;
}

}  // namespace

std::optional<int> diff_bench_runs(const std::vector<std::string>& runs, const std::string& json_out,
                                   const HistoryOptions& history) {
  if (runs.size() != 2) return std::nullopt;
  auto base = find_bench_run(runs[0], history);
  if (!base) return std::nullopt;
  auto now = find_bench_run(runs[1], history);
  if (!now) throw Error("diff: '" + runs[0] + "' is a bench run but '" + runs[1] + "' is not");
  const Comparison cmp = compare_bench(*base, *now, CompareOptions{});
  print_comparison(std::cout, cmp);
  if (!json_out.empty()) {
    std::ofstream out(json_out);
    out << comparison_json(cmp).dump(2) << "\n";
    if (!out) throw Error("cannot write " + json_out);
  }
  return cmp.gate_status();
}

void add_bench_to_report(ReportInput& in, const std::string& spec, const HistoryOptions& history) {
  [[maybe_unused]] const std::string& spawner = in.results.info.spawner;  // used only with the history (BREAKOUT_HAVE_HISTORY)
  if (!spec.empty()) {
    auto doc = find_bench_run(spec, history);
    if (!doc) throw Error("report --bench: '" + spec + "' is neither a breakout.bench/1 file nor a bench run id in the history");
    in.bench = report_bench(*doc, fs::exists(spec) ? spec : "history");
  }
#ifdef BREAKOUT_HAVE_HISTORY
  const fs::path path = history.path.empty() ? default_history_path() : fs::path(history.path);
  if (history.off || !fs::exists(path)) {
    if (!in.bench) in.bench_note = "No bench run given (--bench) and no history to take one from.";
    return;
  }
  BenchHistory h(path);
  if (!in.bench) {
    const auto ids = h.last_run_ids(spawner, 1);
    if (ids.empty()) in.bench_note = "No bench run of " + spawner + " in the history (breakout bench --spawner …).";
    else in.bench = report_bench(h.load(ids.front()), "the newest bench run of this spawner in the history");
  }
  for (const auto& p : h.latency_trend(spawner, 200))
    in.latency_trend.push_back({p.run_id, p.started, p.p50_ms, p.p99_ms, p.ratio_to_raw});
#else
  if (!in.bench) in.bench_note = "No bench run given (--bench); this build has no history database.";
#endif
}

}  // namespace breakout
