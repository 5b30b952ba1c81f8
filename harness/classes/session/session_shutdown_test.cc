// The session-shutdown judge of classes/session/session_shutdown.cc (with session_check.cc's shared
// steps): several execs beating at once, the session shut down while they run; every heartbeat must
// stop. Through run_attempt, with a fake spawner that has sessions and runs 3 execs at once.
#include <condition_variable>
#include <memory>
#include <mutex>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

// The fake session's running execs: each leaves a beater and waits until the session lets it go.
// `shutdown_kills`: the shutdown stops every beater before it answers (a session that kills its
// execs' trees); otherwise they beat on until close(). `shutdown_fails`: it reports failure.
class Execs {
 public:
  Execs(FakeSpawner& s, bool shutdown_kills, bool shutdown_fails) {
    s.sessions = true;
    s.concurrent = 3;
    s.on_exec = [this](const SpawnRequest& r, const LaunchSpec&) {
      std::unique_lock lock(mu_);
      beaters_.push_back(std::make_unique<Beater>());
      beaters_.back()->start(arg(r, "--heartbeat"));
      cv_.wait(lock, [this] { return released_; });
      return exited(shutdown_kills_ ? 137 : 0);
    };
    shutdown_kills_ = shutdown_kills;
    s.on_shutdown = [this, shutdown_fails] {
      if (shutdown_kills_) release();
      if (shutdown_fails) throw Error("fake", "the driver answered shutdown with an error");
    };
    s.on_close = [this] { release(); };
  }
  ~Execs() { release(); }

 private:
  void release() {
    std::lock_guard lock(mu_);
    for (auto& b : beaters_) b->stop();  // before the answer: no beat after it
    released_ = true;
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false, shutdown_kills_ = false;
  std::vector<std::unique_ptr<Beater>> beaters_;
};

class SessionShutdown : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("session-shutdown", {"--heartbeat", "{heartbeat}", "--children", "1"}, "3");
};

TEST_F(SessionShutdown, ExecsStillBeatingAfterTheShutdownAnswerAreAnEscape) {
  Execs execs(j.spawner, false, false);
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["concurrent_execs"], 3);
  EXPECT_EQ(r.evidence["execs_still_beating_after_shutdown"].size(), 3u);
}

TEST_F(SessionShutdown, AShutdownThatStopsEveryExecIsAPass) {
  Execs execs(j.spawner, true, false);
  EXPECT_VERDICT(j.run(a, ws), Verdict::kPass);
}

TEST_F(SessionShutdown, AShutdownThatFailsCannotPass) {
  // No skip path in this judge: a failed shutdown is the error case.
  Execs execs(j.spawner, true, true);
  const AttemptRecord r = j.run(a, ws);
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("shutdown failed"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
