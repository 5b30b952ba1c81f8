// The race calibration's judgement (race_calibration.h).
#include "harness/attempt/race_calibration.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "harness/core/file_prefix.h"

namespace breakout {

std::string race_victim() {
  const char* hook = std::getenv("BREAKOUT_TEST_RACE_VICTIM");
  return hook != nullptr && std::string(hook) == "safe" ? "safe" : "racy";
}

std::optional<std::string> calibrate_arg(const std::vector<std::string>& argv) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == "--calibrate") return argv[i + 1];
  return std::nullopt;
}

long long int_arg(const std::vector<std::string>& argv, const std::string& flag, long long fallback) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == flag) {
      char* end = nullptr;
      const long long v = std::strtoll(argv[i + 1].c_str(), &end, 10);
      return end != nullptr && *end == '\0' ? v : fallback;
    }
  return fallback;
}

long long count_win_lines(const std::filesystem::path& file, const std::string& line) {
  // Written inside the sandbox: a regular file only (a FIFO or a link planted there is no win and
  // must not block the harness), and bounded, as the tree's other files (find_token).
  std::error_code ec;
  if (std::filesystem::symlink_status(file, ec).type() != std::filesystem::file_type::regular) return 0;
  const std::string data = read_file_prefix(file, 1u << 20);
  long long n = 0;
  for (std::size_t at = 0, nl; (nl = data.find('\n', at)) != std::string::npos; at = nl + 1)
    if (line.empty() || (nl - at == line.size() && data.compare(at, nl - at, line) == 0)) ++n;
  return n;
}

void add_probe_report(RaceTally& t, const nlohmann::json& report) {
  const auto field = [&](const char* k) {
    return report.is_object() && report.contains(k) && report[k].is_number_integer() ? report[k].get<long long>() : 0;
  };
  t.tries += field("tries");
  t.flips += field("flips");
  t.calib_tries += field("calib_tries");
  t.elapsed_ms += field("elapsed_ms");
}

double miss_chance(long long tries, long long wins, long long calib_tries) {
  if (wins <= 0 || calib_tries <= 0) return 1.0;
  const double p = std::min(1.0, static_cast<double>(wins) / static_cast<double>(calib_tries));
  if (p >= 1.0) return 0.0;
  return std::exp(static_cast<double>(tries) * std::log1p(-p));
}

namespace {

std::string figure(double chance) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", chance);
  return buf;
}

}  // namespace

void judge_race(Observation& o, const Execution& ex, const RaceTally& t) {
  const double miss = miss_chance(t.tries, t.calib_wins, t.calib_tries);
  const bool won = t.calib_wins >= t.wins_needed;
  o.evidence["race"] = {{"tries", t.tries},
                        {"flips", t.flips},
                        {"elapsed_ms", t.elapsed_ms},
                        {"calibration",
                         {{"victim", t.victim},
                          {"window_us", t.window_us},
                          {"tries", t.calib_tries},
                          {"wins", t.calib_wins},
                          {"wins_needed", t.wins_needed},
                          {"won", won}}},
                        {"miss_chance", miss}};
  const std::string figures = "won " + std::to_string(t.calib_wins) + " of " + std::to_string(t.calib_tries) +
                              " tries against a known-racy victim" +
                              (t.window_us > 0 ? " (check and use " + std::to_string(t.window_us) + " us apart)" : "");
  if (ex.expectation.value != Expected::kDenied || o.effect != Effect::kNotHappened) return;
  if (!won) {
    o.not_applicable = "inconclusive: the race could not be won against a known-racy victim within the budget (" +
                       figures + ", " + std::to_string(t.wins_needed) + " needed; " + std::to_string(t.tries) +
                       " tries, " + std::to_string(t.flips) + " flips in " + std::to_string(t.elapsed_ms) + " ms)";
    return;
  }
  o.summary += "; race calibrated: " + figures + ", estimated chance of a miss " + figure(miss);
}

}  // namespace breakout
