// Scenarios as data: suites of attempts loaded from TOML and schema-checked.
//
// An attempt names a probe, its arguments and the targets it aims at; it never
// states an expected outcome (expectation.h computes that from the policy).
// Field-by-field documentation: docs/scenarios.md.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/mechanism.h"
#include "harness/model/policy.h"

namespace breakout {

// What an attempt tries, and therefore which outside oracle judges it: one enumerator per row of
// model/classes.def, which says what each class tries and how it is judged. Each class's traits,
// expectation rule and oracle are its entry in the class table (class_spec.h).
enum class AttemptClass {
#define BREAKOUT_CLASS(name, text, judge) k##name,
#include "harness/model/classes.def"
#undef BREAKOUT_CLASS
  kCount,  // not a class: the number of classes (keep last)
};
const char* to_string(AttemptClass c);
std::optional<AttemptClass> attempt_class_from(const std::string& s);
// Traits, read from the class's table entry (class_spec.h says what each means).
bool has_targets(AttemptClass c);
bool is_contract(AttemptClass c);
const char* probe_for(AttemptClass c);
bool needs_sessions(AttemptClass c);
bool needs_real_home(AttemptClass c);
bool needs_real_host(AttemptClass c);
bool is_fs_api(AttemptClass c);
bool takes_path_form(AttemptClass c);

// The pseudo-probe of the fs-api classes: nothing is executed, the harness calls the spawner's API.
inline constexpr const char* kDriverFsProbe = "driver-fs";

struct Attempt {
  std::string id;            // stable, dotted: "fs.write.create"
  std::string title;         // one line
  std::string description;   // why it matters
  std::string reference;     // public sources: CVE, upstream issue, man page, paper
  std::vector<std::string> platforms;  // "linux", "windows"
  AttemptClass klass{};
  std::string probe;         // probe name without the "breakout-probe-" prefix
  std::vector<std::string> args;       // with {placeholders}, see docs/scenarios.md
  std::vector<std::string> targets;    // "fs:~/.ssh/id_ed25519", "net:tcp4-loopback", "env:NAME"
  std::string param;         // input of contract classes (exit code, signal, cwd, bytes, ms);
                             // for fs classes a path form (attempt/path_form.h), "" = absolute;
                             // for syscall-abi-write the ABI: "i386" or "x32"
  // Another attempt of the suite whose allowed executions are this one's controls (their
  // group is this one's): a direct connect under network = "proxy" has no allowed target of
  // its own, its control is the same probe reaching the allowed destination through the proxy.
  std::string controls_from;
  // Kernel mechanisms every execution of it needs besides its target's (model/mechanism.h):
  // a spawner that declares one refused skips its controls as that limitation.
  std::vector<Mechanism> needs;
  // `uses = ["names"]`: the probe names its destination, so the run's name server must answer
  // (oracle/name_server.h; it resolves only for network = "proxy" spawns). Without it: a skip.
  bool uses_names = false;
  std::vector<std::string> env;        // "NAME=value" per-exec caller overrides ({placeholders} expanded)
  // The suite's policies it runs under; empty: all of them. Only a union of suites (`all`)
  // sets it: an attempt runs under the policies of the member suites that include it.
  std::vector<std::string> policies;
  bool timeout_override = false;       // when true, `timeout` replaces the policy's
  std::optional<std::chrono::milliseconds> timeout;
  std::string source;        // file it came from
  // Where it is written (results.json "source", results.sarif's location): the attempts file as
  // loaded and the line of its [[attempt]] header (0: not from a file, e.g. a live-fuzzing case).
  std::string file;
  int line = 0;
};

struct Suite {
  std::string name;
  std::string description;
  std::vector<Policy> policies;
  std::vector<Attempt> attempts;
  std::filesystem::path file;
};

// Loads a suite (by path, or by name from <scenarios_dir>/suites/<name>.toml),
// its policies (<scenarios_dir>/policies/<name>.toml) and included attempt files.
// A union of suites (`suites = { linux = [...] }`, scenarios/suites/all.toml) loads the
// members `platform` ("linux", "windows") runs, each attempt under its members' policies.
// Throws Error("code", "...") on any schema violation, including a target list
// with a denied target but no allowed control under one of the suite's policies.
Suite load_suite(const std::string& name_or_path, const std::filesystem::path& scenarios_dir,
                 const std::string& platform);
// Does the attempt run under this policy of its suite (Attempt::policies)?
bool runs_under(const Attempt& a, const Policy& p);

// Parses one attempts file (a list of [[attempt]] tables).
std::vector<Attempt> parse_attempts_text(const std::string& text, const std::string& origin);

// Lists suite names available under <scenarios_dir>/suites.
std::vector<std::string> list_suites(const std::filesystem::path& scenarios_dir);

}  // namespace breakout
