// Calibration, scheduling within the budget, and interleaved measurement of the benchmark cases.
#include "harness/bench/bench_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <sstream>

#include "harness/core/error.h"

namespace breakout::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kCalibrationSpawns = 3;         // at most; the median sets the schedule
constexpr double kCalibrationTime_s = 0.2;    // ... or fewer, once this much time is spent
constexpr std::int64_t kMaxIterations = 10'000'000;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct State {
  const Case* c = nullptr;
  Figure f;
  std::vector<double> samples_ms;
  double spent_s = 0;  // calibration + repetitions
  double budget_s = 0;
  bool active = false;
};

void check_cancel(const std::atomic<bool>* cancel) { check(!(cancel && cancel->load()), "interrupted"); }

// One timed spawn, with the pipe benchmark's byte count checked (a spawner that
// loses output must not look fast).
double timed_spawn_ms(const Case& c) {
  const SpawnSample s = c.target->spawn_once();
  if (c.kind == "pipe")
    check(s.out_bytes + s.err_bytes == c.bytes_per_spawn,
          "pipe: " + std::to_string(s.out_bytes) + " + " + std::to_string(s.err_bytes) + " bytes arrived, " +
              std::to_string(c.bytes_per_spawn) + " expected");
  return std::chrono::duration<double, std::milli>(s.wall).count();
}

void calibrate(State& st, const Settings& settings, const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  std::vector<double> ms;
  while (static_cast<int>(ms.size()) < kCalibrationSpawns && (ms.empty() || seconds(Clock::now() - t0) < kCalibrationTime_s)) {
    check_cancel(cancel);
    ms.push_back(timed_spawn_ms(*st.c));
  }
  st.spent_s = seconds(Clock::now() - t0);
  st.f.calibration_ms = median(ms);
  st.f.schedule = schedule_for(st.f.calibration_ms / 1000, settings.budget_s - st.spent_s, settings);
  st.f.reason = st.f.schedule.note;
}

void run_repetition(State& st, const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  double sum = 0;
  for (std::int64_t i = 0; i < st.f.schedule.iterations; ++i) {
    check_cancel(cancel);
    const double ms = timed_spawn_ms(*st.c);
    st.samples_ms.push_back(ms);
    sum += ms;
  }
  st.f.repetition_ms.push_back(sum / static_cast<double>(st.f.schedule.iterations));
  st.spent_s += seconds(Clock::now() - t0);
}

}  // namespace

Schedule schedule_for(double seconds_per_spawn, double budget_left_s, const Settings& settings) {
  const double t = std::max(seconds_per_spawn, 1e-9);
  const double budget = std::max(budget_left_s, 0.0);
  Schedule s;
  s.repetitions = std::max(1, settings.repetitions);
  s.iterations = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(settings.min_time_s / t)), 1,
                                          kMaxIterations);
  const auto fits = [&] { return static_cast<double>(s.repetitions) * static_cast<double>(s.iterations) * t <= budget; };
  if (fits()) return s;
  // Shorter repetitions first (keeps the repetition count the U test needs) ...
  s.iterations = std::max<std::int64_t>(1, static_cast<std::int64_t>(budget / (s.repetitions * t)));
  if (fits()) {
    std::ostringstream why;
    why << "budget " << settings.budget_s << " s: " << s.iterations << " spawns per repetition";
    s.note = why.str();
    return s;
  }
  // ... then fewer repetitions of one spawn each; at least one, even over the budget.
  const int wanted = s.repetitions;
  s.repetitions = std::max(1, static_cast<int>(budget / t));
  std::ostringstream why;
  why << "budget " << settings.budget_s << " s at " << t << " s per spawn: " << s.repetitions << " of " << wanted
      << " repetitions";
  s.note = why.str();
  return s;
}

std::vector<Figure> run_benchmarks(const std::vector<Case>& cases, const Settings& settings,
                                   const std::atomic<bool>* cancel, const Progress& progress) {
  std::vector<State> states(cases.size());
  auto fail = [&](State& st, const std::exception& e) {
    check_cancel(cancel);  // an interrupt is not a benchmark failure
    st.f.status = "error";
    st.f.reason = e.what();
    st.active = false;
    if (progress) progress(st.f.name + ": error: " + st.f.reason);
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    State& st = states[i];
    st.c = &cases[i];
    st.f.name = cases[i].name, st.f.kind = cases[i].kind, st.f.via = cases[i].via;
    st.f.bytes_per_spawn = cases[i].bytes_per_spawn;
    if (!cases[i].target) {
      st.f.status = "skipped";
      st.f.reason = cases[i].skip_reason;
      if (progress) progress(st.f.name + ": skipped: " + st.f.reason);
      continue;
    }
    try {
      calibrate(st, settings, cancel);
      st.active = true;
      if (progress) {
        std::ostringstream line;
        line << st.f.name << ": " << st.f.calibration_ms << " ms per spawn -> " << st.f.schedule.repetitions
             << " x " << st.f.schedule.iterations << " spawns";
        progress(line.str());
      }
    } catch (const std::exception& e) {
      fail(st, e);
    }
  }
  // Interleaved: repetition k of every case before repetition k + 1 of any.
  for (int rep = 0;; ++rep) {
    bool any = false;
    for (State& st : states) {
      if (!st.active) continue;
      if (rep >= st.f.schedule.repetitions) {
        st.active = false;
        continue;
      }
      if (rep > 0 && st.spent_s >= settings.budget_s) {  // slower than calibrated: stop at the budget
        st.active = false;
        st.f.reason = "budget " + std::to_string(settings.budget_s) + " s reached after " + std::to_string(rep) +
                      " of " + std::to_string(st.f.schedule.repetitions) + " repetitions";
        continue;
      }
      any = true;
      try {
        run_repetition(st, cancel);
      } catch (const std::exception& e) {
        fail(st, e);
      }
    }
    if (!any) break;
  }
  std::vector<Figure> out;
  double raw_p50 = 0;
  for (State& st : states) {
    if (st.f.status == "ok") {
      st.f.ms = summarize(st.samples_ms);
      if (st.f.via == "raw" && st.f.kind == "spawn") raw_p50 = st.f.ms.p50;
      if (st.f.kind == "pipe" && st.f.ms.mean > 0)
        st.f.bytes_per_second = static_cast<double>(st.f.bytes_per_spawn) / (st.f.ms.mean / 1000);
    }
    out.push_back(std::move(st.f));
  }
  for (Figure& f : out)
    if (f.status == "ok" && f.kind == "spawn" && raw_p50 > 0) f.ratio_to_raw = f.ms.p50 / raw_p50;
  return out;
}

}  // namespace breakout::bench
