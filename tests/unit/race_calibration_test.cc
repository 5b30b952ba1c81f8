// The race calibration's judgement (attempt/race_calibration.h): a denial where nothing happened is
// a pass only when the calibration beside it was won often enough; otherwise skip "inconclusive",
// never pass. An escape, and a control, are judged as they would be without it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "harness/attempt/race_calibration.h"

namespace breakout {
namespace {

struct CalibrationCase {
  Attempt attempt;
  Execution ex;
  explicit CalibrationCase(Expected e) {
    ex.attempt = &attempt;
    ex.expectation.value = e;
  }
};

Observation seen(Effect e) {
  Observation o;
  o.effect = e;
  o.summary = e == Effect::kHappened ? "target changed" : "host tree outside the writable roots unchanged";
  return o;
}

RaceTally tally(long long wins) {
  RaceTally t;
  t.tries = t.calib_tries = 400;
  t.flips = 900;
  t.calib_wins = wins;
  t.elapsed_ms = 120;
  return t;
}

TEST(JudgeRace, ADenialWhoseCalibrationWasWonIsJudgedAndSaysSo) {
  CalibrationCase c(Expected::kDenied);
  Observation o = seen(Effect::kNotHappened);
  judge_race(o, c.ex, tally(kCalibrationWins));
  EXPECT_FALSE(o.not_applicable.has_value());
  EXPECT_NE(o.summary.find("race calibrated: won 8 of 400"), std::string::npos) << o.summary;
  EXPECT_EQ(o.evidence["race"]["calibration"]["won"], true);
  EXPECT_EQ(o.evidence["race"]["calibration"]["wins"], 8);
  EXPECT_LT(o.evidence["race"]["miss_chance"].get<double>(), 0.001);
}

TEST(JudgeRace, ADenialWhoseCalibrationWasNotWonIsInconclusiveNeverPass) {
  for (long long wins : {0LL, kCalibrationWins - 1}) {
    CalibrationCase c(Expected::kDenied);
    Observation o = seen(Effect::kNotHappened);
    judge_race(o, c.ex, tally(wins));
    ASSERT_TRUE(o.not_applicable.has_value()) << wins;
    EXPECT_EQ(o.not_applicable->rfind("inconclusive: the race could not be won against a known-racy victim", 0), 0u)
        << *o.not_applicable;
    EXPECT_NE(o.not_applicable->find("won " + std::to_string(wins) + " of 400"), std::string::npos) << *o.not_applicable;
    EXPECT_EQ(o.evidence["race"]["calibration"]["won"], false);
  }
}

TEST(JudgeRace, AnEscapeIsAnEscapeWhateverTheCalibration) {
  CalibrationCase c(Expected::kDenied);
  Observation o = seen(Effect::kHappened);
  judge_race(o, c.ex, tally(0));
  EXPECT_FALSE(o.not_applicable.has_value());
  EXPECT_EQ(o.summary, "target changed");
  EXPECT_TRUE(o.evidence.contains("race"));
}

TEST(JudgeRace, AControlIsJudgedByItsOwnEffect) {
  CalibrationCase c(Expected::kAllowed);
  Observation o = seen(Effect::kNotHappened);  // an overblock stays one
  judge_race(o, c.ex, tally(0));
  EXPECT_FALSE(o.not_applicable.has_value());
}

TEST(MissChance, FallsWithTheTriesAndIsOneWithoutAWin) {
  EXPECT_DOUBLE_EQ(miss_chance(1000, 0, 1000), 1.0);
  EXPECT_DOUBLE_EQ(miss_chance(1000, 5, 0), 1.0);
  EXPECT_DOUBLE_EQ(miss_chance(10, 10, 10), 0.0);
  EXPECT_NEAR(miss_chance(100, 1, 100), 0.366, 0.001);  // (0.99)^100
  EXPECT_LT(miss_chance(2000, 8, 2000), miss_chance(1000, 8, 2000));
}

TEST(CountWinLines, CountsEveryLineOrOnlyTheToken) {
  const auto file = std::filesystem::temp_directory_path() / ("race-calibration-test-" + std::to_string(::getpid()));
  {
    std::ofstream out(file);
    out << "tok\nother\ntok\ntok-and-more\n";
  }
  EXPECT_EQ(count_win_lines(file), 4);
  EXPECT_EQ(count_win_lines(file, "tok"), 2);
  std::filesystem::remove(file);
  EXPECT_EQ(count_win_lines(file), 0);  // none written: no win
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  EXPECT_EQ(count_win_lines(file), 0);  // a FIFO planted there: no win, and no wait for a writer
  std::filesystem::remove(file);
}

TEST(CalibrateArg, FindsTheExpandedValue) {
  EXPECT_EQ(calibrate_arg({"p", "--op", "flip", "--calibrate", "/w/calib-1"}), "/w/calib-1");
  EXPECT_FALSE(calibrate_arg({"p", "--op", "exchange", "--calibrate"}).has_value());
  EXPECT_EQ(int_arg({"--wins", "3"}, "--wins", 8), 3);
  EXPECT_EQ(int_arg({"--wins", "x"}, "--wins", 8), 8);
}

}  // namespace
}  // namespace breakout
