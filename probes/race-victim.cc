// breakout-probe-race-victim: the harness's own known-racy victim, run outside every sandbox as
// the positive control of a race against a spawner's fs API (fs.api.race-flip; CWE-367). It is
// to write_file what the reference driver's bug would be: it resolves a name, checks that it lies
// in --allowed, then opens the name again (race_victim.h). The harness flips the link meanwhile,
// exactly as it does for the attempt, and counts the lines that landed in the file the check
// refuses: races it knows it can win, under the same load.
//
//   --allowed DIR [--victim racy|safe] [--window-us N]
//     stdin: one name per line (at most 4096 bytes); for each, one line on stdout:
//     "won" (written, and the file written is DIR/../won), "lost" (written elsewhere, inside DIR),
//     "refused" (the check said no), "failed" (no such file, or the open failed). EOF: exit 0.
//   safe: opens the path it checked (the tests' hook for a calibration that cannot be won).
//   --window-us: the check and the open held N microseconds apart (race_victim.h, hold_window).
//
// Exit: 0 at EOF, 64 usage error. Writes only the files the harness made for it.
//
// POSIX only (Linux).
#include <climits>
#include <cstdio>
#include <string>

#include <sys/stat.h>

#include "probes/common/args.h"
#include "probes/common/race_victim.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-race-victim --allowed DIR [--victim racy|safe] [--window-us N]\n"
    "  reads names on stdin; writes each after checking it resolves into DIR; answers won|lost|refused|failed\n";

constexpr std::size_t kMaxName = 4096;

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"allowed", Args::kValue}, {"victim", Args::kValue}, {"window-us", Args::kValue}});
  const long long window_us = args.get_int("window-us", 0, 100000, 0);
  bool ok = true;
  const race::Victim victim = race::victim_from(args.has("victim") ? args.require("victim") : std::string("racy"), ok);
  if (!ok) args.usage_error("--victim is racy or safe");
  char real[PATH_MAX];
  if (::realpath(args.require("allowed").c_str(), real) == nullptr) args.usage_error("--allowed does not resolve");
  const std::string allowed = real;
  const std::string won = allowed.substr(0, allowed.rfind('/')) + "/won";
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string name;
  for (int c; (c = std::getchar()) != EOF;) {
    if (c != '\n') {
      if (name.size() < kMaxName) name.push_back(static_cast<char>(c));
      continue;
    }
    const race::WriteTry t = race::check_then_write(name, allowed, "breakout: calibration, written after the check\n", victim,
                                                       window_us);
    struct stat w{};
    const char* answer = "failed";
    if (t.outcome == race::Outcome::kRefused) answer = "refused";
    if (t.outcome == race::Outcome::kWritten)
      answer = ::stat(won.c_str(), &w) == 0 && w.st_ino == t.written.st_ino && w.st_dev == t.written.st_dev ? "won" : "lost";
    std::printf("%s\n", answer);
    name.clear();
  }
  return 0;
}
