// The class table's entry: everything breakout knows about one attempt class, in one place.
//
// The schema (scenario.cc), the planner (run/plan.cc), the expectation model (expectation.cc), the
// host's availability (host/availability.cc) and the runner read an attempt's class only through its
// entry; none of them switches on the class. The table is model/class_table.cc, made of the families'
// rows (harness/classes/<family>/spec.h); the oracle that judges each class is its row in
// attempt/oracle_table.cc (the model layer never links the runner: the fuzz targets build on the
// model alone). How to add a class: docs/architecture.md.
#pragma once

#include <cstddef>
#include <span>

#include "harness/model/expectation.h"
#include "harness/model/scenario.h"

namespace breakout {

// The policy field an attempt's expectation is decided by: a spawner that cannot express
// that field skips the class's executions it decides (Spawner::cannot_express_execution).
// kExecCwd: the writable roots, for an exec whose cwd lies outside them (a tool that makes the
// cwd writable, as `codex sandbox` does, declares it: [cannot_express] exec_cwd).
// kCallerFds: the writable roots, for a write through an fd the caller left open (a tool that
// passes every such fd on by design, as bubblewrap does, declares it: [cannot_express] caller_fds).
enum class PolicyField { kNone, kWritable, kDenyRead, kDenyWrite, kNetwork, kEnvInherit, kEnvPinned, kExecCwd, kCallerFds };

// What the schema demands of an attempt's timeout_ms.
enum class TimeoutRule { kAny, kFinite, kNone };

// Where a class's mechanism exists at all. A host outside them plans its executions as a skip
// with the class's `platform_why` (host/availability.h, class_unavailable).
enum class Platforms { kAny, kLinux, kX86_64Linux, kWindows };

// A kernel mechanism the class needs, which a host of its platforms may still lack or forbid; the
// host layer asks the kernel about the requirement, never about the class (host/availability.h).
enum class Requirement { kNone, kIoUring };

// What an expectation rule is given; `target` is null for classes without targets.
struct RuleInput {
  AttemptClass klass;
  const Target* target;
  const Policy& policy;
  const TreeRoots& roots;
};
using ExpectRule = Expectation (*)(const RuleInput&);

struct ClassSpec {
  AttemptClass klass{};         // from model/classes.def
  const char* name = nullptr;   // from model/classes.def: as written in scenario files, "fs-write"
  const char* probe;  // the one probe it runs (kDriverFsProbe: none, the harness calls the driver)
  // Traits.
  bool targets = false;     // aims at targets; false: takes none
  bool contract = false;    // an execution contract (needs `param`; expected: holds)
  bool sessions = false;    // needs a spawner with sessions (boot, exec, shutdown)
  bool real_home = false;   // uses the real HOME: only under `run --real-host`
  bool real_host = false;   // only under `run --real-host` (the real-home classes and real-net-connect)
  bool fs_api = false;      // the spawner's own fs API; no probe runs
  bool path_form = false;   // `param` names a path form (model/path_form.h)
  // Its probe takes `--witness PATH` and, after its attempt, leaves its report line there: the
  // in-run control of a denial whose control needs a mechanism the spawner refuses (mechanism.h).
  bool witness = false;
  FsRule fs = FsRule::kNone;
  PolicyField decided_by = PolicyField::kNone;
  TimeoutRule timeout = TimeoutRule::kAny;
  const char* params = nullptr;     // "i386|x32": the only values `param` may take (nullptr: any)
  const char* host_noun = nullptr;  // host-object classes: what no policy grants ("processes")
  // Availability: where the mechanism exists (`platform_why` says so elsewhere), and what it needs there.
  Platforms platforms = Platforms::kAny;
  const char* platform_why = nullptr;
  Requirement needs = Requirement::kNone;
  // A probe the harness itself runs for this class besides `probe` (run/preflight.cc checks it is
  // installed): "noop" for spawner-follow's learning execs, "race-victim" for fs-api-race's calibration.
  const char* helper_probe = nullptr;
  // Its executions run with no other beside them (run/runner.cc: after the pool, one by one). For
  // a class whose oracle mounts on the host inside the tree: a sandbox starting beside it walks
  // the host's mount table (bubblewrap's --ro-bind / / remounts every submount read-only), and a
  // mount detached meanwhile fails that sandbox's setup (EINVAL), which would be charged to it.
  bool alone = false;
  // Its nonce travels through the sandbox's proxy: another listener it reaches is judged by the
  // class's own rule (attempt/collateral.cc), and a template tool's proxy limits apply to it
  // ([cannot_express] proxy_ports, proxy_local; spawner/template_spawner.cc). Otherwise a nonce
  // elsewhere is judged as a direct connect's.
  bool via_proxy = false;
  // The expectation: `expect` when set, else the fixed value and sentence.
  ExpectRule expect = nullptr;
  Expected fixed = Expected::kDenied;
  const char* why = nullptr;
};

inline constexpr std::size_t kAttemptClassCount = static_cast<std::size_t>(AttemptClass::kCount);

// The entry of `c`; every class has one (class_table.cc checks it at compile time).
// Throws Error("bad-class") for a value outside the enum.
const ClassSpec& class_spec(AttemptClass c);
// Every entry, in enum order.
std::span<const ClassSpec> class_table();

}  // namespace breakout
