// The fake spawner's sessions: each exec is the test's script (fake_spawner.h).
#include "tests/unit/judges/support/fake_spawner.h"

#include "harness/core/error.h"
#include "tests/unit/judges/support/host_effects.h"

namespace breakout::judges {

namespace {

class FakeSession final : public SpawnSession {
 public:
  explicit FakeSession(const FakeSpawner& s) : s_(s) {}
  ~FakeSession() override { close(); }
  LaunchResult exec(const SpawnRequest& r, const LaunchSpec& limits) override { return s_.run(r, limits); }
  std::vector<std::string> command_line() const override { return {"fake"}; }
  void shutdown() override {
    if (shut_) return;
    shut_ = true;
    if (s_.on_shutdown) s_.on_shutdown();
  }
  void close() override {
    if (closed_) return;
    closed_ = true;
    if (s_.on_close) s_.on_close();
  }
  FsAnswer write_file(const std::string& path, const std::string& content) override {
    if (!s_.on_write_file) return SpawnSession::write_file(path, content);
    return s_.on_write_file(path, content);
  }
  FsAnswer read_file(const std::string& path) override {
    if (!s_.on_read_file) return SpawnSession::read_file(path);
    return s_.on_read_file(path);
  }

 private:
  const FakeSpawner& s_;
  bool shut_ = false, closed_ = false;
};

}  // namespace

std::vector<SpawnRequest> FakeSpawner::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

std::unique_ptr<SpawnSession> FakeSpawner::open(const SpawnRequest& boot, const LaunchSpec&, Containment*,
                                                const std::atomic<bool>*) const {
  ++opens_;
  if (refuse_boot)
    if (const auto why = refuse_boot(boot)) throw Error("fake-boot", *why);
  if (on_open) on_open(boot);
  return std::make_unique<FakeSession>(*this);
}

LaunchResult FakeSpawner::run(const SpawnRequest& r, const LaunchSpec& limits) const {
  {
    std::lock_guard lock(mu_);
    requests_.push_back(r);
  }
  return on_exec ? on_exec(r, limits) : exited(0);
}

}  // namespace breakout::judges
