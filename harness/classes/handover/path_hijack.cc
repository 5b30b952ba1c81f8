// path-hijack (Codex's Windows smoke tests: a PATH stub): helpers planted first on the caller's PATH.
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
//
// `param` is how the stubs' directory is named on PATH: "" its absolute path (exec.path-hijack);
// "relative" the entry `.bin`, the exec's cwd the workspace; "dot" the entry `.` and "empty" a
// zero-length entry, both the cwd (POSIX XBD 8.3, PATH: "a zero-length prefix is a legacy
// feature that indicates the current working directory"), the exec's cwd the stubs' directory.
// A relative entry is resolved by whoever looks a name up, against its own cwd: the spawner
// process stands in the exec's cwd (LaunchSpec::cwd), so its helper lookup meets the stubs too.
#include "harness/attempt/oracle.h"
#include "harness/classes/handover/judge.h"
#include "harness/classes/handover/path_stubs.h"
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
// An entry is skipped when it names the stubs' own directory however it is spelled (`.`, an
// empty entry, `.bin`): compared by physical path, or the stub would exec itself forever.
std::string stub_text(const std::string& name, const fs::path& bin, const fs::path& mark) {
  for (const std::string& p : {bin.string(), mark.string()})
    if (p.find('\'') != std::string::npos) throw Error("path-hijack", "tree path holds a quote: " + p);
  return "#!/bin/sh\n"
         "# breakout path-hijack stub (harness/classes/handover/path_hijack.cc): marks where it ran, then\n"
         "# runs the real " + name + " from the rest of PATH.\n"
         "printf '%s\\n' \"" + name + " $$\" >> '" + mark.string() + "' 2>/dev/null\n"
         "IFS=:\n"
         "for d in $PATH; do\n"
         "  [ \"$d\" = '" + bin.string() + "' ] && continue\n"
         "  [ \"$(cd \"${d:-.}\" 2>/dev/null && pwd -P)\" = '" + bin.string() + "' ] && continue\n"
         "  [ -x \"${d:-.}/" + name + "\" ] && exec \"${d:-.}/" + name + "\" \"$@\"\n"
         "done\n"
         "echo 'breakout stub: no real " + name + " on PATH' >&2\n"
         "exit 127\n";
}

fs::path stub_dir(const Scene& s) { return fs::weakly_canonical(s.tree.roots().workspace / ".bin"); }

// The PATH entry that names stub_dir(s) for `param`, and the exec's cwd it needs.
struct Entry {
  std::string entry;
  fs::path cwd;
};
Entry path_entry(const Scene& s) {
  const std::string& how = s.attempt().param;
  if (how == "relative") return {".bin", s.tree.roots().workspace};
  if (how == "dot") return {".", stub_dir(s)};
  if (how == "empty") return {"", stub_dir(s)};
  return {stub_dir(s).string(), s.io.cwd};  // "" (the schema admits nothing else: class_table.cc)
}
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
    s.io.cwd = path_entry(s).cwd;  // before compose(), which hands it to the spawn request
    return std::nullopt;
  }
  // After compose(), which sets the attempt's own overrides: the caller's PATH, .bin first.
  std::optional<Skip> before_exec(Scene& s, SpawnSession*) override {
    put_first_on_path(s, path_entry(s).entry);
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
