// Races and their positive control: a race attempt is judged only when the same race, run beside
// it under the same load and budget, beat a victim the harness knows to be racy.
//
// A race that was not won proves nothing: on a loaded runner the flipper may barely run. So every
// probabilistic attempt (fs.race.symlink-flip, fs.race.rename-ancestor-flip, fs.api.race-flip)
// runs a calibration beside it: the same flipper, the same tries, against a check-then-use victim
// (probes/common/race_victim.h). The wins are counted from outside (lines the victim left in a
// file the harness reads), and the tries go on until the victim lost kCalibrationWins times or
// the cap. A denial where nothing happened is `pass` only when the calibration was won that
// often; otherwise `skip` "inconclusive". docs/scenarios.md, "Races and their calibration".
//
//   RaceTally t = ...;            // the attempt's tries and flips, the calibration's tries and wins
//   judge_race(o, s.ex, t);       // evidence.race, and the inconclusive skip where it applies
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "harness/attempt/observe.h"

namespace breakout {

// The wins a calibration must reach for a pass: with as many tries of the attempt as of the
// calibration, a sandbox as racy as the victim is missed with a chance of about e^-8 (0.03 %).
inline constexpr long long kCalibrationWins = 8;

struct RaceTally {
  long long tries = 0;        // the attempt's own tries (opens, reads, write_file calls)
  long long flips = 0;        // of the attempt's link or ancestor
  long long calib_tries = 0;  // the victim's tries beside them
  long long calib_wins = 0;   // counted by the harness, from outside
  long long wins_needed = kCalibrationWins;
  long long elapsed_ms = 0;
  std::string victim = "racy";  // "safe": the test hook (race_victim())
  long long window_us = 0;      // the victim's check and use held this far apart (0: two syscalls)
};

// Adds one exec's probe report (fs-race: tries, flips, calib_tries, elapsed_ms) to `t`: display
// figures for the miss chance; the wins are counted from outside (count_win_lines), never read here.
void add_probe_report(RaceTally& t, const nlohmann::json& report);

// The calibration victim: "racy", or "safe" (never loses: a calibration that cannot be won)
// when the environment has BREAKOUT_TEST_RACE_VICTIM=safe, the tests' hook.
std::string race_victim();

// The expanded value of `--calibrate` in a probe's argv; nullopt for an uncalibrated attempt.
std::optional<std::string> calibrate_arg(const std::vector<std::string>& argv);
// The integer after `flag` in `argv`, or `fallback`.
long long int_arg(const std::vector<std::string>& argv, const std::string& flag, long long fallback);

// Lines of `file` (read up to 1 MiB), all of them or only those equal to `line` when not empty.
long long count_win_lines(const std::filesystem::path& file, const std::string& line = "");

// The chance that `tries` tries all miss a window the calibration hit `wins` times in
// `calib_tries`: (1 - wins/calib_tries)^tries; 1 when nothing was won.
double miss_chance(long long tries, long long wins, long long calib_tries);

// evidence["race"] with the tally and the miss chance; for a denial where nothing happened and
// the calibration was not won `wins_needed` times, the inconclusive skip (never a pass); for a
// pass, the calibration's figures in the summary (so in the verdict's reason and every report).
void judge_race(Observation& o, const Execution& ex, const RaceTally& t);

}  // namespace breakout
