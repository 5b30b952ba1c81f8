// Oracles of the execution contract: exit code, death by signal, cwd, output, "no timeout".
#include <csignal>
#include <thread>

#include "harness/attempt/oracle.h"
#include "harness/classes/contract/judge.h"
#include "harness/core/text.h"
#include "shared/flood_pattern.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

Observation held(bool ok, std::string text) {
  Observation o;
  o.effect = ok ? Effect::kHappened : Effect::kNotHappened;
  o.summary = std::move(text);
  return o;
}

std::string reported(const LaunchResult& run) {
  return run.exited ? "exit " + std::to_string(run.exit_code) : "signal " + std::to_string(run.term_signal);
}

class ExitCode final : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    const std::string& param = s.attempt().param;
    const int want = std::atoi(param.c_str());
    return held(run.exited && run.exit_code == want, "asked for exit " + param + ", spawner reported " + reported(run));
  }
};

int signal_number(const std::string& name) {
  static const std::pair<const char*, int> kSignals[] = {
      {"TERM", SIGTERM}, {"INT", SIGINT}, {"ABRT", SIGABRT}, {"SEGV", SIGSEGV},
#ifdef SIGKILL  // POSIX names; mingw's <csignal> has only the C ones
      {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"HUP", SIGHUP},
#endif
  };
  for (const auto& [n, v] : kSignals)
    if (name == n) return v;
  return std::atoi(name.c_str());
}

class ExitSignal final : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    const std::string& param = s.attempt().param;
    const int sig = signal_number(param);
    // A wrapper that is not the probe's parent can only report 128+N (shell convention).
    const bool ok = (!run.exited && run.term_signal == sig) || (run.exited && run.exit_code == 128 + sig);
    return held(ok, "probe died of SIG" + param + " (" + std::to_string(sig) + "), spawner reported " + reported(run));
  }
};

// The probe runs in workspace/<param> and writes a relative marker: it lands there only
// if the spawner honoured the cwd.
class Cwd final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    s.io.cwd = s.tree.roots().workspace / s.attempt().param;
    fs::create_directories(s.io.cwd);
    s.io.mark = s.io.cwd / (s.tag() + ".mark");
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult&) override {
    std::error_code ec;
    const bool there = fs::exists(s.io.mark, ec);
    Observation o = held(there, there ? "the probe's relative marker appeared in the requested cwd"
                                      : "no marker in the requested cwd: cwd was not honoured");
    o.evidence["marker"] = printable_excerpt(s.io.mark.string(), 512);
    o.evidence["marker_exists"] = there;
    return o;
  }
};

class OutputFlood final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    s.limits.max_capture = static_cast<std::size_t>(std::stoull(s.attempt().param)) + (1u << 20);
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult& run) override {
    const std::string& param = s.attempt().param;
    const std::uint64_t n = std::stoull(param);
    const std::string out = check_flood(1, run.out, n), err = check_flood(2, run.err, n);
    Observation o = held(out.empty() && err.empty() && !run.timed_out,
                         out.empty() && err.empty()
                             ? "stdout and stderr complete and byte-exact (" + param + " bytes each)"
                             : "output damaged: stdout " + (out.empty() ? "exact" : out) + "; stderr " +
                                   (err.empty() ? "exact" : err) + (run.timed_out ? " (timed out)" : ""));
    o.evidence["stdout_bytes"] = run.out_total;
    o.evidence["stderr_bytes"] = run.err_total;
    o.evidence["stdout_check"] = out.empty() ? "exact" : out;
    o.evidence["stderr_check"] = err.empty() ? "exact" : err;
    return o;
  }
};

class NoTimeout final : public Oracle {
 public:
  // "none" must mean none: the harness's own bound is only a generous safety net.
  std::optional<Skip> prepare(Scene& s) override {
    s.limits.timeout = std::chrono::milliseconds(3 * std::stoll(s.attempt().param) + 10000);
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult& run) override {
    const std::string& param = s.attempt().param;
    std::error_code ec;
    const bool there = fs::exists(s.io.mark, ec);
    Observation o = held(there && !run.timed_out && run.exited && run.exit_code == 0,
                         there ? "the " + param + " ms run completed without a timeout"
                               : "the " + param + " ms run was cut short (no timeout must mean none)");
    o.evidence["marker_exists"] = there;
    return o;
  }
};

}  // namespace

std::unique_ptr<Oracle> exit_code() { return make_oracle<ExitCode>(); }
std::unique_ptr<Oracle> exit_signal() { return make_oracle<ExitSignal>(); }
std::unique_ptr<Oracle> cwd() { return make_oracle<Cwd>(); }
std::unique_ptr<Oracle> output_flood() { return make_oracle<OutputFlood>(); }
std::unique_ptr<Oracle> no_timeout() { return make_oracle<NoTimeout>(); }

}  // namespace breakout::oracles
