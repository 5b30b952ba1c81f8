// `breakout repro`: decode an artifact with the live fuzzer's decoder, run it once, print it, optionally save it.
#include "harness/cli/repro_cmd.h"

#include <fstream>
#include <iostream>
#include <iterator>

#include "harness/attempt/work_root.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/live/live_run.h"
#include "harness/live/regression.h"
#include "harness/host/spawner_residue.h"
#include "harness/platform/os.h"
#include "harness/run/preflight.h"
#include "harness/spawner/driver_spawner.h"
#include "harness/spawner/spawner.h"

namespace breakout {

namespace fs = std::filesystem;

struct ReproCommand {
  CLI::App* app = nullptr;
  std::string artifact, spawner = "bwrap", driver, regressions;
  bool save = false;
};

namespace {

constexpr std::size_t kMaxArtifact = 4096;  // live inputs are 7 bytes; the decoder reads no more

std::vector<std::uint8_t> read_artifact(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("no-artifact", "cannot read " + path);
  std::vector<char> buf(kMaxArtifact);
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  return std::vector<std::uint8_t>(buf.begin(), buf.begin() + in.gcount());
}

std::atomic<bool> g_interrupted{false};

}  // namespace

std::shared_ptr<ReproCommand> add_repro_command(CLI::App& app) {
  auto c = std::make_shared<ReproCommand>();
  c->app = app.add_subcommand("repro", "rerun a live-fuzzer artifact once through a spawner and print it in plain words");
  c->app->add_option("artifact", c->artifact, "a live_fuzzer input (crash-<sha1>, a corpus file)")->required();
  c->app->add_option("--spawner", c->spawner, "none, a profile name (bwrap, firejail) or a profile .toml path")
      ->capture_default_str();
  c->app->add_option("--driver", c->driver, "a driver command (protocol v1); replaces --spawner");
  c->app->add_flag("--save", c->save, "write the case as a regression scenario (default dir scenarios/regressions)");
  c->app->add_option("--regressions", c->regressions, "where --save writes (default <scenarios>/../scenarios/regressions)");
  c->app->footer("Example:\n  breakout repro fuzz/live/crash-<sha1> --spawner bwrap --save\n"
                 "Exit status: 3 the escape reproduces, 0 it does not, 1 unconfirmed (control broken) or error,\n"
                 "2 usage or configuration error, 130 interrupted. --save writes the file either way.");
  return c;
}

std::optional<int> run_repro_command(const ReproCommand& cmd, const BenchDirs& dirs) {
  if (!cmd.app || !*cmd.app) return std::nullopt;
  if (auto why = run_unsupported_reason()) throw Error("breakout repro: " + *why);
  install_interrupt_flag(&g_interrupted);
  const std::vector<std::uint8_t> bytes = read_artifact(cmd.artifact);
  const LiveCase c = decode_live_case(bytes.data(), bytes.size());
  check_probes_dir(dirs.probes);  // and the case's probes once planned (LiveSetup::check_probes)
  DriverSettings driver;
  if (!cmd.driver.empty()) {
    driver.argv = split_command_line(cmd.driver);
    driver.lookup_path = own_search_path();
    if (auto why = driver_program_missing(driver.argv, *driver.lookup_path)) throw Error("bad-driver", "--driver: " + *why);
  }
  const auto spawner = cmd.driver.empty() ? make_spawner(cmd.spawner, dirs.spawners) : make_driver_spawner(driver);
  if (auto why = spawner->unavailable_reason()) throw Error("spawner " + spawner->name() + " unavailable: " + *why);

  WorkRoot work("repro-" + random_hex(8));
  LiveSetup setup;
  setup.spawner = spawner.get();
  setup.probes_dir = dirs.probes;
  setup.check_probes = true;
  setup.work_root = work.path();
  setup.policies = load_live_policies(dirs.scenarios);
  setup.cancel = &g_interrupted;
  // A proxy case needs what `breakout run` makes for the proxy suite: listeners, the name server.
  std::unique_ptr<LiveNetwork> network;
  if (is_proxy(c.op)) network = std::make_unique<LiveNetwork>(random_hex(8), work.path());
  setup.network = network.get();
  std::string residue_why;
  const auto residue = ResidueWatch::start(dirs.probes, work.path(), &residue_why);
  setup.residue = residue.get();
  const LiveOutcome o = run_live_case(c, setup);
  const std::vector<std::string> left = residue ? residue_lines(residue->finish()) : std::vector<std::string>{};
  if (g_interrupted) return 130;
  std::cout << "breakout repro " << cmd.artifact << " against " << spawner->name() << "\n" << describe_outcome(c, o);
  if (!left.empty()) std::cout << "Left behind by the spawner itself (removed; not a verdict):\n";
  for (const auto& line : left) std::cout << "  " << line << "\n";
  if (cmd.save) {
    const fs::path dir = cmd.regressions.empty() ? dirs.scenarios / "regressions" : fs::path(cmd.regressions);
    const fs::path file = save_regression(c, dir, fs::path(cmd.artifact).filename().string(), bytes);
    std::cout << "saved as " << file.string() << " (the " << live_suite(c) << " suite includes "
              << file.parent_path().string() << ")\n";
  }
  if (o.escape) return 3;
  if (o.unconfirmed || o.target.verdict == Verdict::kError) return 1;
  return 0;
}

}  // namespace breakout
