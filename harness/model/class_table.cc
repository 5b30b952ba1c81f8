// The class table: one entry per attempt class, in the order of model/classes.def.
//
// An entry is what the model knows of a class: its name in scenario files (from classes.def), its
// probe, its traits and its expectation rule (model/expectation_rules.h, or a fixed sentence), its
// row `spec::Name` below. Its oracle is named in classes.def too (attempt/oracle_table.cc). Adding a
// class: docs/architecture.md, "How to add a class".
#include "harness/core/error.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout {

namespace {

using C = AttemptClass;
using E = Expected;

// Each class's row: its probe, traits and rule; its name and enumerator come from classes.def.
namespace spec {
constexpr ClassSpec FsWrite{.probe = "fs-write", .targets = true, .path_form = true,
    .witness = true, .fs = FsRule::kWrite, .decided_by = PolicyField::kWritable, .expect = rules::fs_path};
constexpr ClassSpec FsRead{.probe = "fs-read", .targets = true, .path_form = true,
    .fs = FsRule::kRead, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_path};
constexpr ClassSpec NetConnect{.probe = "net-connect", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::connect};
constexpr ClassSpec EnvLeak{.probe = "env-dump", .targets = true,
    .decided_by = PolicyField::kEnvInherit, .expect = rules::env_leak};
constexpr ClassSpec FdLeak{.probe = "fd-walk", .targets = true,
    .decided_by = PolicyField::kCallerFds, .expect = rules::leaked_fd_write};
constexpr ClassSpec Lifetime{.probe = "spawn-escape",
    .fixed = E::kDenied, .why = "no process may outlive the spawn it belongs to"};
constexpr ClassSpec TimeoutKill{.probe = "hang", .timeout = TimeoutRule::kFinite,
    .fixed = E::kDenied, .why = "a timeout kills the whole process tree"};
constexpr ClassSpec ExitCode{.probe = "exit", .contract = true,
    .fixed = E::kHolds, .why = "execution contract"};
constexpr ClassSpec ExitSignal{.probe = "exit", .contract = true,
    .fixed = E::kHolds, .why = "execution contract"};
constexpr ClassSpec Cwd{.probe = "cwd", .contract = true,
    .fixed = E::kHolds, .why = "execution contract"};
constexpr ClassSpec OutputFlood{.probe = "pipe-flood", .contract = true,
    .fixed = E::kHolds, .why = "execution contract"};
constexpr ClassSpec NoTimeout{.probe = "sleep", .contract = true, .timeout = TimeoutRule::kNone,
    .fixed = E::kHolds, .why = "execution contract"};
constexpr ClassSpec EnvPinned{.probe = "env-dump", .targets = true,
    .decided_by = PolicyField::kEnvPinned, .expect = rules::env_override};
constexpr ClassSpec SessionShutdown{.probe = "hang", .sessions = true,
    .fixed = E::kDenied, .why = "shutdown ends every process of every exec of the session, also of concurrent ones"};
constexpr ClassSpec BootFailure{.probe = "exit", .sessions = true,
    .fixed = E::kDenied, .why = "a refused boot leaves the host exactly as it was (files, modes, owners, xattrs, ACLs)"};
constexpr ClassSpec SessionHygiene{.probe = "spawn-escape", .sessions = true,
    .fixed = E::kDenied, .why = "after shutdown nothing is left: no process, and no change outside the workspace's contents"};
constexpr ClassSpec SessionSetup{.probe = "exit", .sessions = true,
    .fixed = E::kDenied,
    .why = "boot may narrow access or grant read/traverse outside the writable roots, never widen it (no write "
    "grant, no removed deny, no new owner there)"};
constexpr ClassSpec ProcessReach{.probe = "proc-reach", .targets = true, .witness = true,
    .host_noun = "processes", .expect = rules::host_object};
constexpr ClassSpec IpcReach{.probe = "ipc-reach", .targets = true,
    .host_noun = "IPC objects or shared-dir files", .expect = rules::host_object};
constexpr ClassSpec KeyRead{.probe = "keyctl", .targets = true,
    .host_noun = "keyrings", .expect = rules::host_object};
constexpr ClassSpec TtyInject{.probe = "tiocsti", .targets = true,
    .host_noun = "terminals", .expect = rules::host_object};
constexpr ClassSpec DnsQuery{.probe = "dns-query", .targets = true, .witness = true,
    .host_noun = "resolvers", .expect = rules::host_object};
constexpr ClassSpec IoUringWrite{.probe = "io-uring", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .expect = rules::io_uring_write};
constexpr ClassSpec IoUringConnect{.probe = "io-uring", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::connect};
constexpr ClassSpec SyscallAbiWrite{.probe = "syscall-abi", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .params = "i386|x32", .expect = rules::abi_write};
constexpr ClassSpec RegistryWrite{.probe = "reg-write", .targets = true,
    .host_noun = "registry keys", .expect = rules::host_object};
constexpr ClassSpec NamedObjectReach{.probe = "win-object", .targets = true,
    .host_noun = "named pipes or events", .expect = rules::host_object};
constexpr ClassSpec DesktopReach{.probe = "win-desktop", .targets = true,
    .host_noun = "windows or the clipboard of the user's desktop", .expect = rules::host_object};
constexpr ClassSpec RealHomeRead{.probe = "fs-read", .targets = true, .real_home = true,
    .real_host = true, .fs = FsRule::kRead, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_path};
constexpr ClassSpec RealHomeWrite{.probe = "fs-write", .targets = true, .real_home = true,
    .real_host = true, .fs = FsRule::kWrite, .decided_by = PolicyField::kWritable, .expect = rules::fs_path};
constexpr ClassSpec RealNetConnect{.probe = "net-connect", .targets = true, .real_host = true,
    .witness = true, .decided_by = PolicyField::kNetwork, .expect = rules::connect};
constexpr ClassSpec FsApiWrite{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .path_form = true, .decided_by = PolicyField::kWritable, .expect = rules::fs_api_write};
constexpr ClassSpec FsApiRead{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .path_form = true, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_api_read};
constexpr ClassSpec Recon{.probe = "recon", .expect = rules::recon};
constexpr ClassSpec ProtectedWrite{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kDenyWrite, .expect = rules::protected_path};
constexpr ClassSpec ProxyConnect{.probe = "net-connect", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::proxy_connect};
// cwd-write: the cwd is handed over in the path form of `param` (oracles/fs_change.cc).
constexpr ClassSpec CwdWrite{.probe = "fs-write", .targets = true, .path_form = true,
    .decided_by = PolicyField::kExecCwd, .expect = rules::cwd_write};
// path-hijack: `param` is how the stubs' directory is named on PATH (oracles/path_hijack.cc).
constexpr ClassSpec PathHijack{.probe = "path-exec", .targets = true,
    .decided_by = PolicyField::kWritable, .params = "|relative|dot|empty", .expect = rules::path_hijack};
constexpr ClassSpec FailOpen{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .params = "enforcer-path|no-userns", .expect = rules::fail_open};
// Inbound is judged by the connect rule: the host's loopback reaches the sandbox's exactly
// when the sandbox's reaches the host's (one network namespace, or none between them).
constexpr ClassSpec NetInbound{.probe = "net-listen", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::connect};
constexpr ClassSpec SpawnerFollow{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .expect = rules::spawner_follow};
constexpr ClassSpec FsRace{.probe = "fs-race", .targets = true, .witness = true,
    .decided_by = PolicyField::kWritable, .expect = rules::race_write};
constexpr ClassSpec RegistryRead{.probe = "reg-read", .targets = true,
    .host_noun = "registry keys (their values are where programs and services keep credentials)",
    .expect = rules::host_object};
constexpr ClassSpec DeviceRead{.probe = "device-read", .targets = true,
    .host_noun = "raw disks", .expect = rules::host_object};
// ipc: targets (model/host_object.h): icmp-loopback and icmp-external follow the network field;
// a host link and a host vsock listener are judged there too (docs/scenarios.md, "Socket families").
constexpr ClassSpec NetFamily{.probe = "net-family", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .host_noun = "network interfaces (no network mode grants changing the host's)",
    .expect = rules::host_object};
// A read of a deny-read path after its ancestor moved (oracles/race_read.cc plants the canaries):
// judged at the path the harness planted it, whatever name the probe reads it through.
constexpr ClassSpec FsRaceRead{.probe = "fs-race", .targets = true,
    .decided_by = PolicyField::kDenyRead, .expect = rules::race_read};
// A write into a harness-mounted tmpfs (oracles/submount.cc): a submount is judged by where it
// sits, so a root made read-only without MS_REC must not leave it writable.
constexpr ClassSpec SubmountWrite{.probe = "fs-write", .targets = true,
    .decided_by = PolicyField::kWritable, .expect = rules::submount_write};
// write_file raced (oracles/fs_api.cc): judged by the write rule at the path the link names.
constexpr ClassSpec FsApiRace{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .decided_by = PolicyField::kWritable, .expect = rules::race_write};
// A connect to a harness-made bind mount of its listener's socket (oracles/bind_alias.cc): the
// same socket under a name the sandbox may not know to hide, judged by the write rule there.
constexpr ClassSpec BindAliasConnect{.probe = "net-connect", .targets = true,
    .witness = true, .decided_by = PolicyField::kWritable, .expect = rules::bind_alias_connect};
}  // namespace spec

constexpr ClassSpec identified(ClassSpec row, AttemptClass klass, const char* name) {
  row.klass = klass;
  row.name = name;
  return row;
}

constexpr ClassSpec kClasses[] = {
#define BREAKOUT_CLASS(name, text, judge) identified(spec::name, C::k##name, text),
#include "harness/model/classes.def"
#undef BREAKOUT_CLASS
};

// Every class has its entry, at its own index, with a name, a probe and a rule:
// a class added to the enum without one fails to compile here.
constexpr bool complete() {
  for (std::size_t i = 0; i < std::size(kClasses); ++i) {
    const ClassSpec& s = kClasses[i];
    if (static_cast<std::size_t>(s.klass) != i || s.name == nullptr || s.probe == nullptr) return false;
    if (s.expect == nullptr && s.why == nullptr) return false;
    if (s.targets && s.expect == nullptr) return false;  // a class with targets is judged per target
  }
  return true;
}
static_assert(std::size(kClasses) == kAttemptClassCount, "every AttemptClass needs its entry in kClasses");
static_assert(complete(), "kClasses is out of enum order or an entry lacks its name, probe or rule");

}  // namespace

const ClassSpec& class_spec(AttemptClass c) {
  const auto i = static_cast<std::size_t>(c);
  if (i >= std::size(kClasses)) throw Error("bad-class", "not an attempt class: " + std::to_string(i));
  return kClasses[i];
}

std::span<const ClassSpec> class_table() { return kClasses; }

}  // namespace breakout
