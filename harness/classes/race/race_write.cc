// fs-race: a write that races a sandbox's path check (a flipping link, renameat2 exchange).
//
// The snapshot diff decides what happened, as for fs-write. A race (fs.race.symlink-flip) also
// carries its positive control (race_calibration.h): the probe runs the same flipper against a
// known-racy victim beside the attempt (--calibrate C), and every line in C.won is a race won
// against it, counted here from outside. A denial where nothing happened is judged only when that
// calibration was won; an attempt with no --calibrate (fs.race.exchange-dir: one syscall, no
// window) is judged by the snapshot alone.
#include "harness/attempt/oracle.h"
#include "harness/classes/race/judge.h"
#include "harness/attempt/race_calibration.h"

namespace breakout::oracles {

namespace {

class RaceWrite final : public Oracle {
 public:
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    calibration_ = calibrate_arg(s.request.probe_argv);
    if (calibration_ && race_victim() == "safe") s.request.probe_argv.insert(s.request.probe_argv.end(), {"--victim", "safe"});
    return Oracle::exec(s, session);
  }

  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    if (!calibration_) return o;
    RaceTally t;
    add_probe_report(t, parse_probe_report(run.out));
    t.calib_wins = count_win_lines(*calibration_ + ".won");  // the harness's count, not the probe's
    t.wins_needed = int_arg(s.request.probe_argv, "--wins", kCalibrationWins);
    t.victim = race_victim();
    judge_race(o, s.ex, t);
    return o;
  }

 private:
  std::optional<std::string> calibration_;
};

}  // namespace

std::unique_ptr<Oracle> race_write() { return make_oracle<RaceWrite>(); }

}  // namespace breakout::oracles
