// Classes fs-api-write / fs-api-read: ask the spawner's own file API (driver capability fs) to write or read a target;
// fs-api-race: ask it to write through a workspace symlink the harness flips meanwhile, beside the
// same race against the harness's own known-racy victim (race_calibration.h).
//
// No probe runs. The verdict comes from outside only: the host snapshot for a
// write (the nonce file appeared or changed), and for a read the canary token
// the harness planted coming back in the driver's answer — that answer is the
// outside evidence, the harness put the secret there. A refusal is "did not
// happen"; a broken or silent driver is an error (Error propagates).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "harness/attempt/oracle.h"
#include "harness/classes/fs_api/judge.h"
#include "harness/attempt/race_calibration.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/model/path_form.h"
#include "harness/platform/line_channel.h"
#include "harness/platform/os.h"

namespace breakout::oracles {

namespace {

class FsApi final : public Oracle {
 public:
  explicit FsApi(bool write) : write_(write) {}

  // A second name inside the workspace makes a plain file part of it; only deny_read (an
  // inode rule: deny wins) still holds across names. So a denied read through a hard link
  // is tried on deny_read files only.
  std::optional<Skip> prepare(Scene& s) override {
    if (write_ || path_form_from(s.attempt().param) != PathForm::kHardLink ||
        s.ex.expectation.value != Expected::kDenied)
      return std::nullopt;
    bool secret = false;
    for (const auto& d : s.request.resolved.deny_read) secret = secret || path_within(s.io.target_path, d);
    if (!secret)
      return Skip{"path form hard-link reads a deny_read file only: a link to any other file puts it in the workspace"};
    return std::nullopt;
  }

  // The API call stands in for the probe's exec: nothing runs in the sandbox.
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to ask");
    api_ = {{"op", write_ ? "write_file" : "read_file"}, {"path", printable_excerpt(s.io.target_spec, 1024)}};
    const FsAnswer answer = write_ ? session->write_file(s.io.target_spec, "breakout-" + s.io.nonce + "\n")
                                   : session->read_file(s.io.target_spec);
    content_ = answer.content;
    api_["answer"] = answer.refusal ? "refused" : "ok";
    LaunchResult run;
    if (answer.refusal) {  // judged as a refused exec (judge_refused): the host still decides
      api_["refusal"] = answer.refusal->text();
      run.refusal = answer.refusal;
    }
    return run;
  }

  Observation observe(Scene& s, const LaunchResult&) override {
    Observation o;
    if (write_) {
      o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    } else {
      check(!s.io.target_token.empty(), "fs-api-read needs a canary target (" + s.io.target_path.string() + " is none)");
      const bool seen = content_.find(s.io.target_token) != std::string::npos;
      o.evidence["token_seen_in"] = seen ? nlohmann::json::array({"the fs API's answer"}) : nlohmann::json::array();
      api_["content_bytes"] = content_.size();
      o.effect = seen ? Effect::kHappened : Effect::kNotHappened;
      o.summary = seen ? "the fs API answered with the target's canary token" : "the canary token never came back";
    }
    o.evidence["fs_api"] = api_;
    return o;
  }

 private:
  const bool write_;
  nlohmann::json api_;
  std::string content_;
};

// Flips each link between its two names until destroyed. Where the platform can swap two names in
// one step (exchange_names: renameat2 RENAME_EXCHANGE), `link` and a twin `link`.flip naming the
// other target are swapped, one syscall per flip, so a flipper starved on a loaded runner still
// flips often; elsewhere a fresh symlink at `link`.flip is renamed over `link`. Either way every
// lookup of `link` sees one of the two, never no link. The first link is the attempt's (its flips
// counted); the others, the calibration's, flip in the same loop. The harness stands in for the
// sandboxed command here: the workspace is the sandbox's to write, so any command in it can flip a
// link while the agent's runtime writes a file there on its behalf.
struct FlipLink {
  std::filesystem::path link, a, b;  // `link` names `a` when the flipper starts
};

class LinkFlipper {
 public:
  explicit LinkFlipper(std::vector<FlipLink> links) : links_(std::move(links)) {
    for (const auto& l : links_) {  // the link names `a`, its twin the other target
      std::error_code ec;
      std::filesystem::remove(l.link, ec);
      std::filesystem::create_symlink(l.a, l.link, ec);
      std::filesystem::remove(twin(l), ec);
      std::filesystem::create_symlink(l.b, twin(l), ec);
    }
    thread_ = std::thread([this] { run(); });
  }
  ~LinkFlipper() {
    stop_ = true;
    thread_.join();
    std::error_code ec;
    for (const auto& l : links_) std::filesystem::remove(twin(l), ec);
  }
  LinkFlipper(const LinkFlipper&) = delete;
  LinkFlipper& operator=(const LinkFlipper&) = delete;
  long long flips() const { return flips_.load(); }

 private:
  static std::filesystem::path twin(const FlipLink& l) { return l.link.string() + ".flip"; }

  void run() {
    for (bool to_b = true; !stop_; to_b = !to_b) {
      for (std::size_t i = 0; i < links_.size(); ++i) {
        const FlipLink& l = links_[i];
        bool flipped = exchange_names(l.link, twin(l));
        if (!flipped) {  // no exchange here: a fresh twin renamed over the link
          std::error_code ec;
          std::filesystem::remove(twin(l), ec);
          std::filesystem::create_symlink(to_b ? l.b : l.a, twin(l), ec);
          if (!ec) std::filesystem::rename(twin(l), l.link, ec);
          flipped = !ec;
        }
        if (flipped && i == 0) ++flips_;
      }
    }
  }

  const std::vector<FlipLink> links_;
  std::atomic<bool> stop_{false};
  std::atomic<long long> flips_{0};
  std::thread thread_;
};

// The calibration beside fs.api.race-flip (race_calibration.h): the harness's own known-racy
// write_file (probes/race-victim.cc), a process the harness talks to in lines as it talks to the
// driver, on a link the same flipper flips between <dir>/ok/file (the check passes) and
// <dir>/won (a line there is a race won). <dir> lies beside the attempt's tree, outside its
// snapshot, and goes with this object.
class CalibrationVictim {
 public:
  CalibrationVictim(Scene& s, const std::string& victim, long long window_us)
      : dir_(s.ctx.work_root / ("race-" + s.nonce)), link_(dir_ / "link") {
    std::filesystem::create_directories(dir_ / "ok");
    for (const auto& f : {dir_ / "ok" / "file", won()}) {
      std::ofstream touch(f, std::ios::binary | std::ios::app);
      check(static_cast<bool>(touch), "calibrate", "cannot create " + f.string());
    }
    std::filesystem::create_symlink(dir_ / "ok" / "file", link_);
    LaunchSpec spec;
    spec.argv = {(s.ctx.probes_dir / "breakout-probe-race-victim").string(), "--allowed", (dir_ / "ok").string(),
                 "--victim", victim, "--window-us", std::to_string(window_us)};
    spec.env = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8"};
    channel_ = LineChannel::start(spec, &s.box, {.max_line = 64, .stderr_keep = 4096});
  }
  ~CalibrationVictim() {
    channel_.reset();  // killed and reaped before its files go
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  CalibrationVictim(const CalibrationVictim&) = delete;
  CalibrationVictim& operator=(const CalibrationVictim&) = delete;

  FlipLink flip() const { return {link_, dir_ / "ok" / "file", won()}; }
  std::filesystem::path won() const { return dir_ / "won"; }
  // One write_file of the victim through the link: whether it said it landed in `won`.
  bool try_once() {
    using namespace std::chrono_literals;
    channel_->send_line(link_.string(), 5s);
    std::string answer;
    check(channel_->read_line(&answer, 5s) == LineChannel::Read::kLine,
          "the calibration victim did not answer (" + printable_excerpt(channel_->stderr_tail(), 256) + ")");
    return answer == "won";
  }

 private:
  std::filesystem::path dir_, link_;
  std::unique_ptr<LineChannel> channel_;
};

// fs-api-race: write_file at workspace/flip-<tag> while the link there flips between the target
// and a decoy beside it (CWE-367). A runtime that checks the resolved path and then opens the name
// again follows the link to wherever it points by then; one that opens what it checked
// (O_NOFOLLOW per component, openat2 RESOLVE_BENEATH) writes the decoy or refuses. Each call is
// followed by one of the calibration victim, flipped by the same thread: the calls go on until the
// victim lost kCalibrationWins times (and at least kCalls calls and kMinFlips flips), or kCap.
// The snapshot decides; a denial where nothing happened is judged only when the victim lost.
class FsApiRace final : public Oracle {
 public:
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to ask");
    const std::filesystem::path link = s.tree.roots().workspace / ("flip-" + s.tag());
    const std::filesystem::path decoy = link.string() + ".decoy";
    const auto start = std::chrono::steady_clock::now();
    const auto spent = [&] { return std::chrono::steady_clock::now() - start; };
    long long calls = 0, refused = 0, flips = 0, said_won = 0;
    std::string first_refusal;
    tally_.victim = race_victim();
    tally_.window_us = kWindowUs;
    CalibrationVictim victim(s, tally_.victim, kWindowUs);
    {
      LinkFlipper flipper({{link, s.io.target_path, decoy}, victim.flip()});
      while (flipper.flips() == 0 && spent() < kCap) std::this_thread::yield();  // the race starts flipped
      for (; (calls < kCalls || flipper.flips() < kMinFlips || said_won < kCalibrationWins) && spent() < kCap; ++calls) {
        const FsAnswer answer = session->write_file(link.string(), "breakout-" + s.io.nonce + "\n");
        if (answer.refusal && refused++ == 0) first_refusal = answer.refusal->text();
        said_won += victim.try_once() ? 1 : 0;  // the stop rule; the verdict counts the file
      }
      flips = flipper.flips();
    }
    tally_.tries = tally_.calib_tries = calls;
    tally_.flips = flips;
    tally_.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(spent()).count();
    tally_.calib_wins = count_win_lines(victim.won());  // from outside: the lines that landed
    api_ = {{"op", "write_file"}, {"path", printable_excerpt(link.string(), 1024)}, {"calls", calls},
            {"refused", refused}, {"flips", flips}, {"elapsed_ms", tally_.elapsed_ms}};
    if (refused) api_["first_refusal"] = first_refusal;
    check(flips > 0, "the link never flipped within the budget: the race was not run");
    return {};
  }

  Observation observe(Scene& s, const LaunchResult&) override {
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    o.evidence["fs_api"] = api_;
    judge_race(o, s.ex, tally_);
    return o;
  }

 private:
  static constexpr long long kCalls = 200;
  static constexpr long long kMinFlips = 64;
  static constexpr std::chrono::milliseconds kCap{20000};
  // The victim's check and use held 50 us apart: about what a runtime's path check costs when it
  // answers over a pipe (the Python kit's realpath and stat calls). The driver's calls pace the
  // tries (a round trip each), so a narrower victim would need minutes of calls on a loaded
  // runner; a pass says which window it was calibrated for (evidence.race.calibration.window_us).
  static constexpr long long kWindowUs = 50;
  nlohmann::json api_;
  RaceTally tally_;
};

}  // namespace

std::unique_ptr<Oracle> fs_api_race() { return std::make_unique<FsApiRace>(); }
std::unique_ptr<Oracle> fs_api_write() { return std::make_unique<FsApi>(true); }
std::unique_ptr<Oracle> fs_api_read() { return std::make_unique<FsApi>(false); }

}  // namespace breakout::oracles
