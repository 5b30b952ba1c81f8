// Classes fs-api-write / fs-api-read: ask the spawner's own file API (driver capability fs) to write or read a target;
// fs-api-race: ask it to write through a workspace symlink the harness flips meanwhile.
//
// No probe runs. The verdict comes from outside only: the host snapshot for a
// write (the nonce file appeared or changed), and for a read the canary token
// the harness planted coming back in the driver's answer — that answer is the
// outside evidence, the harness put the secret there. A refusal is "did not
// happen"; a broken or silent driver is an error (Error propagates).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "harness/attempt/oracle.h"
#include "harness/attempt/oracles/oracles.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/model/path_form.h"

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

// Flips `link` between `a` and `b` until destroyed: a fresh symlink at `link`.flip renamed over
// `link`, so every lookup of `link` sees one of the two, never no link. The harness stands in
// for the sandboxed command here: the workspace is the sandbox's to write, so any command in it
// can flip a link while the agent's runtime writes a file there on its behalf.
class LinkFlipper {
 public:
  LinkFlipper(std::filesystem::path link, std::filesystem::path a, std::filesystem::path b)
      : link_(std::move(link)), tmp_(link_.string() + ".flip"), a_(std::move(a)), b_(std::move(b)),
        thread_([this] { run(); }) {}
  ~LinkFlipper() {
    stop_ = true;
    thread_.join();
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
  LinkFlipper(const LinkFlipper&) = delete;
  LinkFlipper& operator=(const LinkFlipper&) = delete;
  long long flips() const { return flips_.load(); }

 private:
  void run() {
    for (bool to_a = true; !stop_; to_a = !to_a) {
      std::error_code ec;
      std::filesystem::remove(tmp_, ec);
      std::filesystem::create_symlink(to_a ? a_ : b_, tmp_, ec);
      if (ec) continue;
      std::filesystem::rename(tmp_, link_, ec);
      if (!ec) ++flips_;
    }
  }

  std::filesystem::path link_, tmp_, a_, b_;
  std::atomic<bool> stop_{false};
  std::atomic<long long> flips_{0};
  std::thread thread_;  // last: starts once the rest is set
};

// fs-api-race: write_file at workspace/flip-<tag> while the link there flips between the target
// and a decoy beside it (issue 21 item 7; CWE-367). A runtime that checks the resolved path and
// then opens the name again follows the link to wherever it points by then; one that opens what
// it checked (O_NOFOLLOW per component, openat2 RESOLVE_BENEATH) writes the decoy or refuses.
// Bounded: kCalls calls and at least kMinFlips flips, or kBudget. The snapshot decides.
class FsApiRace final : public Oracle {
 public:
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to ask");
    const std::filesystem::path link = s.tree.roots().workspace / ("flip-" + s.tag());
    const std::filesystem::path decoy = link.string() + ".decoy";
    const auto start = std::chrono::steady_clock::now();
    const auto spent = [&] { return std::chrono::steady_clock::now() - start; };
    long long calls = 0, refused = 0, flips = 0;
    std::string first_refusal;
    {
      LinkFlipper flipper(link, s.io.target_path, decoy);
      while (flipper.flips() == 0 && spent() < kBudget) std::this_thread::yield();  // the race starts flipped
      for (; (calls < kCalls || flipper.flips() < kMinFlips) && spent() < kBudget; ++calls) {
        const FsAnswer answer = session->write_file(link.string(), "breakout-" + s.io.nonce + "\n");
        if (answer.refusal && refused++ == 0) first_refusal = answer.refusal->text();
      }
      flips = flipper.flips();
    }
    api_ = {{"op", "write_file"}, {"path", printable_excerpt(link.string(), 1024)}, {"calls", calls},
            {"refused", refused}, {"flips", flips}, {"elapsed_ms", std::chrono::duration_cast<std::chrono::milliseconds>(spent()).count()}};
    if (refused) api_["first_refusal"] = first_refusal;
    check(flips > 0, "the link never flipped within the budget: the race was not run");
    return {};
  }

  Observation observe(Scene& s, const LaunchResult&) override {
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    o.evidence["fs_api"] = api_;
    return o;
  }

 private:
  static constexpr long long kCalls = 200;
  static constexpr long long kMinFlips = 64;
  static constexpr std::chrono::milliseconds kBudget{2000};
  nlohmann::json api_;
};

}  // namespace

std::unique_ptr<Oracle> fs_api_race() { return std::make_unique<FsApiRace>(); }
std::unique_ptr<Oracle> fs_api_write() { return std::make_unique<FsApi>(true); }
std::unique_ptr<Oracle> fs_api_read() { return std::make_unique<FsApi>(false); }

}  // namespace breakout::oracles
