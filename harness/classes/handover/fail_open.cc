// fail-open: the spawner started where its enforcement cannot work.
//
// Before the snapshot the harness writes, in a directory of its own in the attempt tree (outside
// every writable root, so no sandboxed command can change it), a `bwrap` and a `firejail` that
// fail the way bubblewrap fails where user namespaces are off ("No permissions to create new
// namespace", exit 1), and puts that directory first on the exec's PATH. A spawner that looks its
// enforcer up on PATH now cannot confine; the right outcome is a refusal (nothing runs, the host
// is unchanged). One that runs the command anyway lets the probe's write outside through: the
// snapshot decides, as for fs-write. A spawner that finds its enforcer by absolute path (the
// harness's own lookup of a profile's command, Codex's bundled bubblewrap) still confines.
// The control is the same probe's write in the workspace under the normal PATH (controls_from).
//
// param "no-userns" (exec.fail-open-userns): instead of the stubs, the spawner starts in a user
// namespace the harness makes for it, its own ids mapped to themselves, where max_user_namespaces
// is 0 (LaunchSpec::user_namespaces_off): a sandbox that needs a new user namespace cannot start.
// The judgement is the same snapshot. A spawner that runs as root of that namespace and needs no
// new one (bwrap as root) confines as usual.
#include "harness/attempt/oracle.h"
#include "harness/classes/handover/judge.h"
#include "harness/classes/handover/path_stubs.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

constexpr const char* kEnforcers[] = {"bwrap", "firejail"};

fs::path broken_bin(const Scene& s) { return s.tree.roots().tree / "enforcer-unavailable"; }

bool userns_off(const Scene& s) { return s.attempt().param == "no-userns"; }

class FailOpen final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    if (userns_off(s)) {
      s.limits.user_namespaces_off = true;
      return std::nullopt;
    }
    const fs::path bin = broken_bin(s);
    fs::create_directories(bin);
    for (const std::string name : kEnforcers)
      write_stub(bin / name, "#!/bin/sh\n"
                             "# breakout fail-open stub (harness/classes/handover/fail_open.cc): an enforcer\n"
                             "# that cannot work here, as bubblewrap where user namespaces are off.\n"
                             "echo '" + name + ": No permissions to create new namespace, likely because the kernel "
                             "does not allow non-privileged user namespaces (breakout fail-open stub)' >&2\n"
                             "exit 1\n");
    return std::nullopt;
  }
  // After compose(), which sets the attempt's own overrides: the caller's PATH, the stubs first.
  std::optional<Skip> before_exec(Scene& s, SpawnSession*) override {
    if (userns_off(s)) return std::nullopt;
    put_first_on_path(s, broken_bin(s));
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    if (userns_off(s)) o.evidence["spawner_in_user_namespace_with_max_user_namespaces"] = 0;
    else o.evidence["enforcer_stubs_first_on_path"] = broken_bin(s).string();
    o.evidence["spawner_exit"] = run.exited ? nlohmann::json(run.exit_code) : nlohmann::json(nullptr);
    return o;
  }
};

}  // namespace

std::unique_ptr<Oracle> fail_open() { return make_oracle<FailOpen>(); }

}  // namespace breakout::oracles
