// breakout: the command line (list, run). Exit statuses are documented in docs/results.md.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <mutex>

#include "harness/attempt/real_home.h"
#include "harness/attempt/work_root.h"
#include "harness/cli/bench_cmd.h"
#include "harness/cli/install_layout.h"
#include "harness/cli/repro_cmd.h"
#include "harness/cli/tools.h"
#include "harness/core/error.h"
#include "harness/core/json_file.h"
#include "harness/core/nonce.h"
#include "harness/core/suggest.h"
#include "harness/core/text.h"
#include "harness/model/scenario.h"
#include "harness/host/name_server.h"
#include "harness/host/net_listeners.h"
#include "harness/host/remote_listener.h"
#include "harness/host/spawner_residue.h"
#include "harness/platform/netns.h"
#include "harness/platform/os.h"
#include "harness/report/out_dir.h"
#include "harness/report/results.h"
#include "harness/report/sarif.h"
#include "harness/run/plan.h"
#include "harness/run/preflight.h"
#include "harness/run/progress.h"
#include "harness/run/runner.h"
#include "harness/run/shard.h"
#include "harness/spawner/driver_spawner.h"
#include "harness/spawner/spawner.h"

#ifndef BREAKOUT_DATA_DIR
#define BREAKOUT_DATA_DIR "."
#endif
#ifndef BREAKOUT_VERSION
#define BREAKOUT_VERSION "0.1.0"
#endif
#ifndef BREAKOUT_COMMIT
#define BREAKOUT_COMMIT ""
#endif

namespace fs = std::filesystem;
using namespace breakout;

namespace {

std::atomic<bool> g_interrupted{false};

// Defaults from where the binary sits (install_layout.h): an installed prefix, BREAKOUT_DATA, or the
// build tree; each can be overridden on the command line.
struct Paths {
  DataLayout layout = find_data_layout(self_exe_dir(), env_data(), BREAKOUT_DATA_DIR);
  fs::path scenarios = layout.data / "scenarios";
  fs::path spawners = layout.data / "spawners";
  fs::path probes = layout.probes;

  static std::optional<std::string> env_data() {
    const char* v = std::getenv("BREAKOUT_DATA");
    return v ? std::optional<std::string>(v) : std::nullopt;
  }
};

std::string utc_now(const char* fmt) {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, std::gmtime(&t));
  return buf;
}

int cmd_list(const Paths& paths, const std::string& suite_name) {
  std::cout << "Data (" << paths.layout.origin << "): " << paths.layout.data.string() << "\n\n";
  std::cout << "Suites (" << paths.scenarios.string() << "/suites):\n";
  for (const auto& s : list_suites(paths.scenarios)) std::cout << "  " << s << "\n";
  const Suite suite = load_suite(suite_name, paths.scenarios, platform_name());
  std::cout << "\nScenarios of suite '" << suite.name << "' (" << suite.attempts.size() << " attempts; policies:";
  for (const auto& p : suite.policies) std::cout << " " << p.name;
  std::cout << "):\n";
  for (const auto& a : suite.attempts) {
    std::cout << "  " << a.id << "  [" << to_string(a.klass) << "]  " << a.title;
    for (std::size_t i = 0; i < a.policies.size(); ++i)  // a union's attempt: its members' policies
      std::cout << (i ? ", " : "  (under ") << a.policies[i] << (i + 1 == a.policies.size() ? ")" : "");
    std::cout << "\n";
  }
  std::cout << "\nProbes (" << paths.probes.string() << "):\n";
  std::set<std::string> probes;
  for (const auto& a : suite.attempts) probes.insert(a.probe);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(paths.probes, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("breakout-probe-", 0) == 0) probes.insert(n.substr(15));
  }
  for (const auto& p : probes) {
    const bool built = find_executable((paths.probes / ("breakout-probe-" + p)).string(), "").has_value();  // .exe on Windows
    const char* note = p == kDriverFsProbe ? "  (no binary: the spawner's own fs API)" : built ? "" : "  (not built)";
    std::cout << "  " << p << note << "\n";
  }
  std::cout << "\nSpawners (" << paths.spawners.string() << "):\n";
  for (const auto& name : list_spawners(paths.spawners)) {
    auto s = make_spawner(name, paths.spawners);
    auto why = s->unavailable_reason();
    std::cout << "  " << name << "  " << (why ? "unavailable: " + *why : "available") << "\n      "
              << s->description() << "\n";
  }
  return 0;
}

struct RunOptions {
  std::string spawner = "bwrap", driver, suite, out, only, shard;
  int jobs = 0;
  bool no_external = false;
  bool real_host = false;
  bool allow_all_skip = false;
  bool sarif_all = false;
  std::string real_host_endpoint;
  std::string color = "auto";
  HistoryOptions history;
};

// A sandbox that cannot run a single attempt (a driver whose boot always
// fails) must never look like "no escapes found": say it loudly (the exit
// status is already 1 for errors).
void warn_if_nothing_ran(const std::vector<AttemptRecord>& records) {
  const AttemptRecord* first_error = nullptr;
  for (const auto& r : records) {
    if (r.verdict == Verdict::kSkip) continue;
    if (r.verdict != Verdict::kError) return;
    if (!first_error) first_error = &r;
  }
  if (first_error)
    std::cerr << "breakout: FAILED: the spawner did not run a single attempt; first error: " << first_error->reason
              << "\n";
}

// --real-host-endpoint: the user's `breakout listen`, checked from the host before anything runs,
// so a listener that cannot be reached or asked never reads as "the sandbox blocked it".
std::optional<RemoteNonceListener> real_host_endpoint(const RunOptions& o) {
  if (o.real_host_endpoint.empty()) return std::nullopt;
  if (!o.real_host) throw Error("real-host", "--real-host-endpoint belongs to --real-host (docs/real-host.md)");
  RemoteNonceListener remote(o.real_host_endpoint);
  if (auto why = remote.preflight()) throw Error("real-host-endpoint", *why + "; run `breakout listen --bind ADDR:PORT` there");
  std::cerr << "breakout: external listener " << remote.label() << " answers (a nonce sent from the host was seen)\n";
  return remote;
}

// --real-host (docs/real-host.md): the real HOME, and nothing near it but real-home-* attempts.
std::unique_ptr<RealHomeRun> prepare_real_host(const Suite& suite) {
  for (const auto& a : suite.attempts)
    if (!needs_real_host(a.klass))
      throw Error("real-host-suite", "--real-host runs only real-home-read/real-home-write/real-net-connect attempts; suite '" +
                  suite.name + "' has " + a.id + " (" + to_string(a.klass) + ")");
  auto run = std::make_unique<RealHomeRun>(real_home_from_env());
  for (const auto& p : run->removed_leftovers())
    std::cerr << "breakout: removed a canary an interrupted real-host run left: " << p.string() << "\n";
  std::cerr << "breakout: REAL-HOST mode against HOME=" << run->home().string()
            << ": reads are judged by keyed digests (no content leaves the sandbox); only "
               "~/.breakout-canary-<tag>.txt/.new are created there, and removed afterwards\n";
  return run;
}

// A profile or suite given as a .toml path (make_spawner, load_suite) is kept absolute, so the
// reproduce command in a report works from any directory; names stay names.
std::string path_for_reproduce(const std::string& name_or_path) {
  const fs::path p(name_or_path);
  if (p.extension() != ".toml") return name_or_path;
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec);
  return ec ? name_or_path : abs.lexically_normal().string();
}

int cmd_run(const Paths& paths, const RunOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (auto why = run_unsupported_reason()) throw Error("breakout run: " + *why);
  install_interrupt_flag(&g_interrupted);
  const std::optional<Shard> shard = o.shard.empty() ? std::nullopt : std::optional<Shard>(parse_shard(o.shard));
  const std::string suite_arg = !o.suite.empty() ? o.suite : o.real_host ? "real-host" : default_suite_name();
  const Suite suite = load_suite(suite_arg, paths.scenarios, platform_name());
  check_probes_dir(paths.probes);  // before anything starts; the probes the plan needs once it is made
  const std::unique_ptr<RealHomeRun> real_home = o.real_host ? prepare_real_host(suite) : nullptr;  // restores HOME's mtime last
  const std::optional<RemoteNonceListener> remote = real_host_endpoint(o);
  DriverSettings driver;
  if (!o.driver.empty()) {
    driver.argv = split_command_line(o.driver);
    driver.lookup_path = own_search_path();  // the user's PATH, named in the message (docs/drivers.md)
    if (auto why = driver_program_missing(driver.argv, *driver.lookup_path)) throw Error("bad-driver", "--driver: " + *why);
  }
  const auto spawner = o.driver.empty() ? make_spawner(o.spawner, paths.spawners) : make_driver_spawner(driver);
  if (auto why = spawner->unavailable_reason()) throw Error("spawner " + spawner->name() + " unavailable: " + *why);

  RunInfo info;
  const std::string run_nonce = random_hex(8);
  info.run_id = utc_now("%Y%m%dT%H%M%SZ") + "-" + run_nonce.substr(0, 6);
  info.suite = suite.name;
  info.spawner = spawner->name();
  info.spawner_version = spawner->version();
  info.spawner_description = spawner->description();
  info.spawner_notes = spawner->notes();
  info.spawner_arg = o.driver.empty() ? path_for_reproduce(o.spawner) : "--driver " + o.driver;
  info.suite_arg = path_for_reproduce(suite_arg);
  info.real_host = o.real_host;
  for (const auto& p : suite.policies) info.policies.push_back(p.name);
  info.platform = platform_name();
  info.kernel = kernel_release();
  info.host = host_name();
  info.breakout_version = BREAKOUT_VERSION;
  info.commit = BREAKOUT_COMMIT;
  if (shard) info.shard = shard->text();
  info.started_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  info.jobs = o.jobs > 0 ? o.jobs : 4;
  // --out: created and written to now, so a run is never lost at its end for want of a directory.
  ResultsDir out(o.out.empty() ? fs::path("breakout-results") / (info.run_id + "-" + info.spawner) : fs::path(o.out));
  const fs::path& out_dir = out.path();

  // Run-wide resources; destroyed in reverse order on every exit path (incl. Ctrl-C unwinding).
  std::string external_why = "disabled with --no-external";
  std::unique_ptr<ExternalHost> external;
  if (!o.no_external) external = ExternalHost::create(run_nonce, &external_why);
  NonceListeners listeners(external.get(), external ? "" : external_why);
  WorkRoot work(run_nonce);
  const NameServer names(external.get(), work.path());
  // Before the first spawn, and destroyed after the last box: removes what it lists on every exit path.
  std::string residue_why;
  const auto residue = ResidueWatch::start(paths.probes, work.path(), &residue_why);

  RunContext ctx;
  ctx.probes_dir = paths.probes;
  ctx.work_root = work.path();
  ctx.spawner = spawner.get();
  ctx.listeners = &listeners;
  ctx.names = &names;
  ctx.external = external.get();
  ctx.cancel = &g_interrupted;
  ctx.residue = residue.get();
  if (real_home) ctx.real_home = real_home->home();
  if (remote) ctx.remote = &*remote;

  PlanOptions plan_options{o.only, platform_name()};
  auto plan = plan_executions(suite, *spawner, &listeners, plan_options);
  if (plan.empty()) throw Error("nothing to run (check --only)");
  if (shard) keep_shard(plan, *shard);  // may leave a shard empty: it still writes (empty) results
  check_probes(paths.probes, plan);
  const bool tty = is_tty(2);
  std::cerr << "breakout: running " << plan.size() << " attempts of suite '" << suite.name << "' against "
            << spawner->name() << " with " << info.jobs << " jobs\n";
  // A terminal gets the live counter; a log (CI) a line per interval instead of silence until the summary.
  std::optional<ProgressTicker> ticker;
  if (!tty) ticker.emplace(std::cerr, progress_interval(), plan.size());
  auto progress = [&](std::size_t done, std::size_t total, const AttemptRecord& r) {
    if (ticker) ticker->record(r);
    if (tty)
      std::cerr << "\r\033[K[" << done << "/" << total << "] " << to_string(r.verdict) << "  " << r.id.substr(0, 90)
                << std::flush;
  };
  RunOutcome outcome = run_all(plan, ctx, info.jobs, progress);
  ticker.reset();
  // Where each attempt is written, as results.json and results.sarif give it: relative to here or to the data dir.
  std::error_code cwd_ec;
  const fs::path cwd = fs::current_path(cwd_ec);
  for (auto& r : outcome.records)
    if (!r.source_file.empty()) r.source_file = source_path(r.source_file, paths.scenarios.parent_path(), cwd);
  const std::vector<AttemptRecord>& records = outcome.records;
  if (tty) std::cerr << "\r\033[K";
  // Interrupted: no attempt starts any more, the running ones were killed through their containments
  // and are not judged; what was judged is written (marked) and the run-wide resources unwind on return.
  info.interrupted = outcome.interrupted;
  info.planned = outcome.planned;
  if (info.interrupted)
    std::cerr << "breakout: " << interrupted_line(info, records.size()) << "; writing partial results\n";
  if (residue) info.residue = residue->finish();
  else info.residue.unavailable = residue_why;
  info.finished_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  write_results(out_dir, info, records);
  SarifOptions sarif;
  sarif.all = o.sarif_all;
  write_sarif(out_dir / "results.sarif", info, records, sarif);
  out.keep();
  write_run_report(out_dir);
  print_summary(std::cout, info, records, out_dir, summary_color(o.color));
  record_history(o.history, info, records);  // not for an interrupted run (docs/results.md)
  if (info.interrupted) return 130;
  warn_if_nothing_ran(records);
  return nothing_judged_status(records, o.allow_all_skip);
}

// The first word on the command line that is neither an option nor a top-level option's value, when it
// names no subcommand: `breakout rnu` (CLI11 itself only says that a subcommand is required).
std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") return std::nullopt;
    if (a.size() > 1 && a[0] == '-') {
      const CLI::Option* opt = a.find('=') == std::string::npos ? app.get_option_no_throw(a) : nullptr;
      if (opt && opt->get_items_expected_min() > 0) ++i;  // --scenarios DIR: DIR is no command
      continue;
    }
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (sub->check_name(a)) return std::nullopt;
    return a;
  }
  return std::nullopt;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"breakout: a security test harness for sandboxed process spawners.\n"
               "Probes run inside the sandbox under test; every escape is judged from outside."};
  app.set_version_flag("--version", BREAKOUT_VERSION);
  app.require_subcommand(1);
  Paths paths;
  app.add_option("--scenarios", paths.scenarios, "directory with suites/, policies/ and attempt files")
      ->capture_default_str();
  app.add_option("--spawners", paths.spawners, "directory with spawner profiles (*.toml)")->capture_default_str();
  app.add_option("--probes", paths.probes, "directory with the breakout-probe-* binaries")->capture_default_str();

  std::string list_suite = default_suite_name();
  CLI::App* list = app.add_subcommand("list", "list suites, scenarios, probes and spawners");
  list->add_option("--suite", list_suite, "suite whose scenarios to list")->capture_default_str();
  list->footer("Example:\n  breakout list --suite proxy\n"
               "Exit status: 0 listed; 2 an unknown suite or a suite that does not parse.");

  RunOptions ro;
  CLI::App* run = app.add_subcommand("run", "run a suite against a spawner; writes results.json, junit.xml, results.sarif, report.html and summary.md");
  run->add_option("--spawner", ro.spawner, "none, a profile name (bwrap, firejail) or a profile .toml path")
      ->capture_default_str();
  run->add_option("--driver", ro.driver,
                  "a driver command (protocol v1, docs/drivers.md), e.g. 'python3 my_driver.py'; replaces --spawner");
  run->add_option("--suite", ro.suite, "suite name or path to a suite .toml (default: default, on Windows windows; real-host with --real-host)");
  run->add_option("--out", ro.out, "results directory (default breakout-results/<run-id>-<spawner>)");
  run->add_option("--jobs", ro.jobs, "attempts run in parallel (default 4)")->check(CLI::Range(1, 64));
  run->add_option("--only", ro.only, "glob on attempt or execution ids; the matching executions run with the controls of their groups");
  run->add_flag("--no-external", ro.no_external, "do not create the external-host network namespace");
  run->add_flag("--real-host", ro.real_host,
                "pre-release mode: real-home-* attempts against your real HOME (docs/real-host.md); nothing else");
  run->add_option("--real-host-endpoint", ro.real_host_endpoint,
                  "with --real-host: ADDR:PORT of a `breakout listen` you run on a machine outside, for the "
                  "external network check (docs/real-host.md)");
  run->add_option("--shard", ro.shard, "run only shard K of N (K/N): a stable split by execution group, for CI matrices");
  run->add_flag("--allow-all-skip", ro.allow_all_skip,
                "exit 0 instead of 5 when every execution skipped or none ran (e.g. a Windows suite on Linux)");
  run->add_flag("--sarif-all", ro.sarif_all,
                "results.sarif lists passes and skips too (kind pass/notApplicable), not only the findings");
  add_history_options(run, ro.history);
  add_color_option(run, ro.color);
  run->footer(
      "Examples:\n"
      "  breakout run --spawner bwrap\n"
      "  breakout run --spawner firejail --suite network --only 'net.*' --out results/firejail\n"
      "When stderr is not a terminal, a progress line is printed every 10 s.\n"
      "Exit status: 0 all pass/skip (at least one judged), 3 an escape was found, 1 overblock/broken/error\n"
      "(no escape), 5 nothing judged: every execution skipped or none ran (--allow-all-skip: 0),\n"
      "2 usage or configuration error (checked before the first attempt: --out, --probes, --driver),\n"
      "130 interrupted (results of the executions judged so far are written, marked interrupted).");

  std::string listen_bind;
  int listen_seconds = 3600;
  CLI::App* listen = app.add_subcommand(
      "listen", "the real-host network check's listener: run it on a machine outside (docs/real-host.md)");
  listen->add_option("--bind", listen_bind, "ADDR:PORT to listen on (a literal address; port 0: any)")->required();
  listen->add_option("--for", listen_seconds, "stop after this many seconds")->capture_default_str()->check(
      CLI::Range(1, 86400));
  listen->footer("Records nonces sent as \"BREAKOUT-NONCE <n>\" and answers \"BREAKOUT-QUERY <n>\" with SEEN or\n"
                 "UNSEEN. Ctrl-C stops it.\n"
                 "Example:\n  breakout listen --bind 0.0.0.0:7777 --for 600\n"
                 "Exit status: 0 stopped (Ctrl-C or --for), 2 it cannot listen.");

  const auto tools = add_tool_commands(app);
  const auto bench = add_bench_command(app);
  const auto repro = add_repro_command(app);
  // Set last: a subcommand copies its parent's footer when it is added (CLI11 App constructor).
  app.footer("Examples:\n"
             "  breakout list\n"
             "  breakout run --spawner bwrap\n"
             "  breakout run --help\n"
             "Exit status: each command's --help lists its own; 2 is always a usage or configuration error.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (auto typo = e.get_exit_code() == 0 ? std::nullopt : unknown_command(app, argc, argv)) {
      std::cerr << "breakout: unknown command '" << printable_excerpt(*typo, 200) << "'; "
                << did_you_mean(*typo, command_names(app)) << "\nRun with --help for more information.\n";
      return 2;
    }
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*list) return cmd_list(paths, list_suite);
    if (*run) return cmd_run(paths, ro);
    if (*listen) {
      install_interrupt_flag(&g_interrupted);
      return serve_nonces(listen_bind, std::chrono::seconds(listen_seconds), &g_interrupted, std::cout);
    }
    if (auto rc = run_tool_commands(*tools)) return *rc;
    if (auto rc = run_bench_command(*bench, {paths.scenarios, paths.spawners, paths.probes})) return *rc;
    if (auto rc = run_repro_command(*repro, {paths.scenarios, paths.spawners, paths.probes})) return *rc;
  } catch (const nlohmann::json::exception& e) {  // a results file read past its checks: no library jargon
    std::cerr << "breakout: a JSON document is not what breakout expects: " << json_error_text(e) << "\n";
    return 2;
  } catch (const std::exception& e) {
    // Messages may quote a file's contents or a name the user typed: never a raw control byte on the terminal.
    std::cerr << "breakout: " << printable_excerpt(e.what(), 8192) << "\n";
    return 2;
  }
  return 2;
}
