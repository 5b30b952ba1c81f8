// fail-open (catalog §10; issue 21, item 6): the spawner started where its enforcement cannot work.
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
// What this does not create: a user namespace with max_user_namespaces = 0 around the spawner
// (the harness starts spawners in the host's user namespace); docs/scenarios.md says so.
#include "harness/attempt/oracle.h"
#include "harness/attempt/oracles/oracles.h"
#include "harness/attempt/oracles/path_stubs.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

constexpr const char* kEnforcers[] = {"bwrap", "firejail"};

fs::path broken_bin(const Scene& s) { return s.tree.roots().tree / "enforcer-unavailable"; }

class FailOpen final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    const fs::path bin = broken_bin(s);
    fs::create_directories(bin);
    for (const std::string name : kEnforcers)
      write_stub(bin / name, "#!/bin/sh\n"
                             "# breakout fail-open stub (harness/attempt/oracles/fail_open.cc): an enforcer\n"
                             "# that cannot work here, as bubblewrap where user namespaces are off.\n"
                             "echo '" + name + ": No permissions to create new namespace, likely because the kernel "
                             "does not allow non-privileged user namespaces (breakout fail-open stub)' >&2\n"
                             "exit 1\n");
    return std::nullopt;
  }
  // After compose(), which sets the attempt's own overrides: the caller's PATH, the stubs first.
  std::optional<Skip> before_exec(Scene& s, SpawnSession*) override {
    put_first_on_path(s, broken_bin(s));
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    o.evidence["enforcer_stubs_first_on_path"] = broken_bin(s).string();
    o.evidence["spawner_exit"] = run.exited ? nlohmann::json(run.exit_code) : nlohmann::json(nullptr);
    return o;
  }
};

}  // namespace

std::unique_ptr<Oracle> fail_open() { return make_oracle<FailOpen>(); }

}  // namespace breakout::oracles
