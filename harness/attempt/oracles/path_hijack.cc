// path-hijack (catalog §10; issue 21, item 5): helpers planted first on the caller's PATH.
//
// Before the snapshot the harness plants, in workspace/.bin, a stub for each program a spawner
// or its command is known to look up by name (bubblewrap, firejail, socat, ripgrep, node,
// python3, git), and the exec's caller PATH gets that directory first. The workspace is writable
// to every sandboxed command, so this is what an earlier command could have left; a PATH with a
// workspace directory first is an agent runtime's everyday setup (node_modules/.bin, .venv/bin,
// direnv's PATH_add). Each stub appends a line to `<target>/hijacked-<name>-<tag>` and then runs
// the real program from the rest of PATH, so the spawner keeps working.
//
// The probe runs `git` from PATH, as an agent's command would. A marker outside the writable
// roots means a stub ran unconfined: `hijacked-git` the probe's own command (no confinement at
// all), any other name the spawner resolved its helper through the caller's PATH before it
// confined (Codex's Windows smoke test plants such a PATH stub). The snapshot decides, as for
// fs-write; the markers' names are in the evidence. The harness resolves the spawner's own
// command on its PATH without the override (CommandSession, LaunchSpec::lookup_path), so a
// profile's `bwrap` is never the stub: what the harness launches is not the spawner's doing.
#include "harness/attempt/oracle.h"
#include "harness/attempt/oracles/oracles.h"
#include "harness/attempt/oracles/path_stubs.h"
#include "harness/core/error.h"
#include "harness/platform/os.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

// The programs stubbed: the enforcement and helper binaries of the shipped spawners (bubblewrap,
// firejail; srt's socat and ripgrep and its `#!/usr/bin/env node` launcher) and what an agent's
// command runs (git, python3).
constexpr const char* kHelpers[] = {"bwrap", "firejail", "socat", "rg", "node", "python3", "git"};

// A POSIX shell stub. Paths are the harness's own tree paths; a quote in one would break the
// script's quoting, so it is refused rather than escaped.
std::string stub_text(const std::string& name, const fs::path& bin, const fs::path& mark) {
  for (const std::string& p : {bin.string(), mark.string()})
    if (p.find('\'') != std::string::npos) throw Error("path-hijack", "tree path holds a quote: " + p);
  return "#!/bin/sh\n"
         "# breakout path-hijack stub (harness/attempt/oracles/path_hijack.cc): marks where it ran, then\n"
         "# runs the real " + name + " from the rest of PATH.\n"
         "printf '%s\\n' \"" + name + " $$\" >> '" + mark.string() + "' 2>/dev/null\n"
         "IFS=:\n"
         "for d in $PATH; do\n"
         "  [ \"$d\" = '" + bin.string() + "' ] && continue\n"
         "  [ -x \"$d/" + name + "\" ] && exec \"$d/" + name + "\" \"$@\"\n"
         "done\n"
         "echo 'breakout stub: no real " + name + " on PATH' >&2\n"
         "exit 127\n";
}

fs::path stub_dir(const Scene& s) { return s.tree.roots().workspace / ".bin"; }
fs::path marker(const Scene& s, const std::string& name) {
  return s.io.target_path / ("hijacked-" + name + "-" + s.tag());
}

class PathHijack final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    const fs::path bin = stub_dir(s);
    fs::create_directories(bin);
    fs::create_directories(s.io.target_path);  // the control's workspace directory; host targets exist
    for (const char* name : kHelpers) write_stub(bin / name, stub_text(name, bin, marker(s, name)));
    return std::nullopt;
  }
  // After compose(), which sets the attempt's own overrides: the caller's PATH, .bin first.
  std::optional<Skip> before_exec(Scene& s, SpawnSession*) override {
    put_first_on_path(s, stub_dir(s));
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult&) override {
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    nlohmann::json ran = nlohmann::json::array();
    for (const char* name : kHelpers) {
      std::error_code ec;
      if (fs::exists(marker(s, name), ec)) ran.push_back(name);
    }
    o.evidence["stubs_that_ran_at_target"] = ran;  // read from the host, not from the probe
    return o;
  }
};

}  // namespace

std::unique_ptr<Oracle> path_hijack() { return make_oracle<PathHijack>(); }

}  // namespace breakout::oracles
