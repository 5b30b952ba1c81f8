// The adaptive benchmark scheduler: calibrate, choose iterations and repetitions within a budget, measure interleaved.
//
// Works from microseconds to minutes: a first calibration sample sets how many
// spawns make one repetition (>= min_time) and how many repetitions fit the
// per-benchmark budget, so a 30 s spawner gets a few honest samples instead of
// a timeout. Repetitions of all benchmarks are interleaved (raw, none, S, raw,
// none, S, ...) so that load changes on a shared machine hit them alike, which
// keeps the ratio to raw honest.
//
//   std::vector<Case> cases = {{"spawn/raw", "spawn", "raw", raw_target}, ...};
//   std::vector<Figure> figures = run_benchmarks(cases, settings, &cancel, progress);
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/bench/spawn_probe.h"
#include "harness/bench/statistics.h"

namespace breakout::bench {

struct Settings {
  double min_time_s = 0.5;   // measured time per repetition (at least one spawn)
  int repetitions = 9;       // wanted; >= 9 lets a Mann-Whitney compare give a verdict
  double budget_s = 120;     // per benchmark, calibration included
  double spawn_timeout_s = 600;  // one spawn; beyond it the benchmark fails
};

// How one benchmark is run after calibration.
struct Schedule {
  int repetitions = 1;
  std::int64_t iterations = 1;  // spawns per repetition
  std::string note;             // why fewer repetitions than asked, if so
};

// Pure (unit-tested): iterations = ceil(min_time / t), capped so that
// repetitions * iterations * t fits the budget left after calibration; when
// even one spawn per repetition does not fit, fewer repetitions (at least 1).
Schedule schedule_for(double seconds_per_spawn, double budget_left_s, const Settings& settings);

struct Case {
  std::string name;  // "spawn/raw", "spawn/none", "spawn/bwrap", "pipe/bwrap"
  std::string kind;  // "spawn" | "pipe"
  std::string via;   // "raw" | spawner name
  std::shared_ptr<Target> target;  // null: skipped with `skip_reason`
  std::string skip_reason;
  std::uint64_t bytes_per_spawn = 0;  // pipe: bytes expected on stdout + stderr together
};

struct Figure {
  std::string name, kind, via;
  std::string status = "ok";  // ok | skipped | error
  std::string reason;         // skipped/error: why; ok: scheduling note (may be empty)
  Schedule schedule;
  double calibration_ms = 0;             // median of the calibration spawns (not in the samples)
  std::vector<double> repetition_ms;     // mean spawn time of each repetition: what the U test compares
  Summary ms;                            // over every timed spawn
  double ratio_to_raw = 0;               // ms.p50 / raw's p50 in the same run; 0 when not measured
  std::uint64_t bytes_per_spawn = 0;     // pipe only
  double bytes_per_second = 0;           // pipe only: bytes_per_spawn / mean spawn time
};

using Progress = std::function<void(const std::string& line)>;

// Runs every case; a case that throws becomes status "error" (the others go
// on). Throws Error("interrupted") when *cancel becomes true.
std::vector<Figure> run_benchmarks(const std::vector<Case>& cases, const Settings& settings,
                                   const std::atomic<bool>* cancel, const Progress& progress);

}  // namespace breakout::bench
