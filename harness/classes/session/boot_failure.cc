// boot-failure: a boot that must be refused (a writable root that does not exist) changes nothing on the host.
#include <thread>

#include "harness/classes/session/judge.h"
#include "harness/classes/session/session_check.h"
#include "harness/core/text.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

class BootFailure final : public SessionCheck {
 public:
  // The boot under test is the refused one, made in exec(); there is no session of the attempt's own.
  std::unique_ptr<SpawnSession> open(Scene&) override { return nullptr; }

  LaunchResult exec(Scene& s, SpawnSession*) override {
    SpawnRequest bad = s.request;
    const fs::path missing = s.tree.roots().tree / "missing-writable-root";
    bad.resolved.writable.push_back(missing);
    seen_.evidence["missing_writable_root"] = missing.string();
    try {
      auto session = s.ctx.spawner->open(bad, s.limits, &s.box, s.ctx.cancel);
      if (const auto refusal = session->boot_refusal()) {  // refused with a refusal code: no session to end
        seen_.evidence["boot_refused"] = refusal->text();
      } else {
        accepted_ = true;
        shutdown_into(*session, seen_.evidence);
      }
      s.rec.evidence["spawner"] = session->evidence();
    } catch (const std::exception& e) {
      seen_.evidence["boot_refused"] = printable_excerpt(e.what(), 1024);
    }
    seen_.evidence["boot_accepted"] = accepted_;
    return {};
  }

  Observation observe(Scene& s, const LaunchResult&) override {
    Observation& o = seen_;
    std::this_thread::sleep_for(s.ctx.settle);
    const auto changes = diff_snapshots(*s.before, take_snapshot(s.tree.roots().tree));
    o.evidence["host_changes"] = describe_changes(changes);
    // Control, after the diff so its own grants and revocations cannot blur it:
    // the same boot without the missing root must work, or the refusal proves nothing.
    try {
      auto control = s.ctx.spawner->open(s.request, s.limits, &s.box, s.ctx.cancel);
      if (const auto refusal = control->boot_refusal())
        throw Error("the driver refused it: " + refusal->text());
      control->shutdown();
      o.in_run_control = "";
      o.evidence["control_boot"] = "ok";
    } catch (const std::exception& e) {
      o.in_run_control = "the same boot without the missing root failed too: " + printable_excerpt(e.what(), 512);
      o.evidence["control_boot"] = printable_excerpt(e.what(), 1024);
    }
    o.effect = changes.empty() ? Effect::kNotHappened : Effect::kHappened;
    o.summary = !changes.empty() ? "the " + std::string(accepted_ ? "accepted" : "refused") +
                                       " boot left the host changed: " + first_change(changes)
                : accepted_ ? "the boot was accepted although a writable root does not exist; the host is unchanged"
                            : "the boot was refused and the host is unchanged";
    return std::move(o);
  }

 private:
  Observation seen_;
  bool accepted_ = false;
};

}  // namespace

std::unique_ptr<Oracle> boot_failure() { return make_oracle<BootFailure>(); }

}  // namespace breakout::oracles
