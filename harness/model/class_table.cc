// The class table: one entry per attempt class, in enum order (checked at compile time).
//
// An entry is what the model knows of a class: its name in scenario files, its
// probe, its traits and its expectation rule (model/expectation_rules.h, or a fixed
// sentence). Its oracle is its row in attempt/oracle_table.cc. Adding a class:
// docs/architecture.md, "How to add a class".
#include "harness/core/error.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout {

namespace {

using C = AttemptClass;
using E = Expected;

constexpr ClassSpec kClasses[] = {
    {.klass = C::kFsWrite, .name = "fs-write", .probe = "fs-write", .targets = true, .path_form = true,
     .witness = true, .fs = FsRule::kWrite, .decided_by = PolicyField::kWritable, .expect = rules::fs_path},
    {.klass = C::kFsRead, .name = "fs-read", .probe = "fs-read", .targets = true, .path_form = true,
     .fs = FsRule::kRead, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_path},
    {.klass = C::kNetConnect, .name = "net-connect", .probe = "net-connect", .targets = true, .witness = true,
     .decided_by = PolicyField::kNetwork, .expect = rules::connect},
    {.klass = C::kEnvLeak, .name = "env-leak", .probe = "env-dump", .targets = true,
     .decided_by = PolicyField::kEnvInherit, .expect = rules::env_leak},
    {.klass = C::kFdLeak, .name = "fd-leak", .probe = "fd-walk", .targets = true,
     .decided_by = PolicyField::kCallerFds, .expect = rules::leaked_fd_write},
    {.klass = C::kLifetime, .name = "lifetime", .probe = "spawn-escape",
     .fixed = E::kDenied, .why = "no process may outlive the spawn it belongs to"},
    {.klass = C::kTimeoutKill, .name = "timeout-kill", .probe = "hang", .timeout = TimeoutRule::kFinite,
     .fixed = E::kDenied, .why = "a timeout kills the whole process tree"},
    {.klass = C::kExitCode, .name = "exit-code", .probe = "exit", .contract = true,
     .fixed = E::kHolds, .why = "execution contract"},
    {.klass = C::kExitSignal, .name = "exit-signal", .probe = "exit", .contract = true,
     .fixed = E::kHolds, .why = "execution contract"},
    {.klass = C::kCwd, .name = "cwd", .probe = "cwd", .contract = true,
     .fixed = E::kHolds, .why = "execution contract"},
    {.klass = C::kOutputFlood, .name = "output-flood", .probe = "pipe-flood", .contract = true,
     .fixed = E::kHolds, .why = "execution contract"},
    {.klass = C::kNoTimeout, .name = "no-timeout", .probe = "sleep", .contract = true, .timeout = TimeoutRule::kNone,
     .fixed = E::kHolds, .why = "execution contract"},
    {.klass = C::kEnvPinned, .name = "env-pinned", .probe = "env-dump", .targets = true,
     .decided_by = PolicyField::kEnvPinned, .expect = rules::env_override},
    {.klass = C::kSessionShutdown, .name = "session-shutdown", .probe = "hang", .sessions = true,
     .fixed = E::kDenied, .why = "shutdown ends every process of every exec of the session, also of concurrent ones"},
    {.klass = C::kBootFailure, .name = "boot-failure", .probe = "exit", .sessions = true,
     .fixed = E::kDenied, .why = "a refused boot leaves the host exactly as it was (files, modes, owners, xattrs, ACLs)"},
    {.klass = C::kSessionHygiene, .name = "session-hygiene", .probe = "spawn-escape", .sessions = true,
     .fixed = E::kDenied, .why = "after shutdown nothing is left: no process, and no change outside the workspace's contents"},
    {.klass = C::kSessionSetup, .name = "session-setup", .probe = "exit", .sessions = true,
     .fixed = E::kDenied,
     .why = "boot may narrow access or grant read/traverse outside the writable roots, never widen it (no write "
            "grant, no removed deny, no new owner there)"},
    {.klass = C::kProcessReach, .name = "process-reach", .probe = "proc-reach", .targets = true, .witness = true,
     .host_noun = "processes", .expect = rules::host_object},
    {.klass = C::kIpcReach, .name = "ipc-reach", .probe = "ipc-reach", .targets = true,
     .host_noun = "IPC objects or shared-dir files", .expect = rules::host_object},
    {.klass = C::kKeyRead, .name = "key-read", .probe = "keyctl", .targets = true,
     .host_noun = "keyrings", .expect = rules::host_object},
    {.klass = C::kTtyInject, .name = "tty-inject", .probe = "tiocsti", .targets = true,
     .host_noun = "terminals", .expect = rules::host_object},
    {.klass = C::kDnsQuery, .name = "dns-query", .probe = "dns-query", .targets = true, .witness = true,
     .host_noun = "resolvers", .expect = rules::host_object},
    {.klass = C::kIoUringWrite, .name = "io-uring-write", .probe = "io-uring", .targets = true, .witness = true,
     .decided_by = PolicyField::kWritable, .expect = rules::io_uring_write},
    {.klass = C::kIoUringConnect, .name = "io-uring-connect", .probe = "io-uring", .targets = true, .witness = true,
     .decided_by = PolicyField::kNetwork, .expect = rules::connect},
    {.klass = C::kSyscallAbiWrite, .name = "syscall-abi-write", .probe = "syscall-abi", .targets = true, .witness = true,
     .decided_by = PolicyField::kWritable, .params = "i386|x32", .expect = rules::abi_write},
    {.klass = C::kRegistryWrite, .name = "registry-write", .probe = "reg-write", .targets = true,
     .host_noun = "registry keys", .expect = rules::host_object},
    {.klass = C::kNamedObjectReach, .name = "named-object-reach", .probe = "win-object", .targets = true,
     .host_noun = "named pipes or events", .expect = rules::host_object},
    {.klass = C::kDesktopReach, .name = "desktop-reach", .probe = "win-desktop", .targets = true,
     .host_noun = "windows or the clipboard of the user's desktop", .expect = rules::host_object},
    {.klass = C::kRealHomeRead, .name = "real-home-read", .probe = "fs-read", .targets = true, .real_home = true,
     .real_host = true, .fs = FsRule::kRead, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_path},
    {.klass = C::kRealHomeWrite, .name = "real-home-write", .probe = "fs-write", .targets = true, .real_home = true,
     .real_host = true, .fs = FsRule::kWrite, .decided_by = PolicyField::kWritable, .expect = rules::fs_path},
    {.klass = C::kRealNetConnect, .name = "real-net-connect", .probe = "net-connect", .targets = true, .real_host = true,
     .witness = true, .decided_by = PolicyField::kNetwork, .expect = rules::connect},
    {.klass = C::kFsApiWrite, .name = "fs-api-write", .probe = kDriverFsProbe, .targets = true, .fs_api = true,
     .path_form = true, .decided_by = PolicyField::kWritable, .expect = rules::fs_api_write},
    {.klass = C::kFsApiRead, .name = "fs-api-read", .probe = kDriverFsProbe, .targets = true, .fs_api = true,
     .path_form = true, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_api_read},
    {.klass = C::kRecon, .name = "recon", .probe = "recon", .expect = rules::recon},
    {.klass = C::kProtectedWrite, .name = "protected-write", .probe = "fs-write", .targets = true,
     .decided_by = PolicyField::kDenyWrite, .expect = rules::protected_path},
    {.klass = C::kProxyConnect, .name = "proxy-connect", .probe = "net-connect", .targets = true, .witness = true,
     .decided_by = PolicyField::kNetwork, .expect = rules::proxy_connect},
    // cwd-write: the cwd is handed over in the path form of `param` (oracles/fs_change.cc).
    {.klass = C::kCwdWrite, .name = "cwd-write", .probe = "fs-write", .targets = true, .path_form = true,
     .decided_by = PolicyField::kExecCwd, .expect = rules::cwd_write},
    // path-hijack: `param` is how the stubs' directory is named on PATH (oracles/path_hijack.cc).
    {.klass = C::kPathHijack, .name = "path-hijack", .probe = "path-exec", .targets = true,
     .decided_by = PolicyField::kWritable, .params = "|relative|dot|empty", .expect = rules::path_hijack},
    {.klass = C::kFailOpen, .name = "fail-open", .probe = "fs-write", .targets = true,
     .decided_by = PolicyField::kWritable, .params = "enforcer-path|no-userns", .expect = rules::fail_open},
    // Inbound is judged by the connect rule: the host's loopback reaches the sandbox's exactly
    // when the sandbox's reaches the host's (one network namespace, or none between them).
    {.klass = C::kNetInbound, .name = "net-inbound", .probe = "net-listen", .targets = true, .witness = true,
     .decided_by = PolicyField::kNetwork, .expect = rules::connect},
    {.klass = C::kSpawnerFollow, .name = "spawner-follow", .probe = "fs-write", .targets = true,
     .decided_by = PolicyField::kWritable, .expect = rules::spawner_follow},
    {.klass = C::kFsRace, .name = "fs-race", .probe = "fs-race", .targets = true, .witness = true,
     .decided_by = PolicyField::kWritable, .expect = rules::race_write},
    {.klass = C::kRegistryRead, .name = "registry-read", .probe = "reg-read", .targets = true,
     .host_noun = "registry keys (their values are where programs and services keep credentials)",
     .expect = rules::host_object},
    {.klass = C::kDeviceRead, .name = "device-read", .probe = "device-read", .targets = true,
     .host_noun = "raw disks", .expect = rules::host_object},
    // ipc: targets (model/host_object.h): icmp-loopback and icmp-external follow the network field;
    // a host link and a host vsock listener are judged there too (docs/scenarios.md, "Socket families").
    {.klass = C::kNetFamily, .name = "net-family", .probe = "net-family", .targets = true, .witness = true,
     .decided_by = PolicyField::kNetwork, .host_noun = "network interfaces (no network mode grants changing the host's)",
     .expect = rules::host_object},
    // A read of a deny-read path after its ancestor moved (oracles/race_read.cc plants the canaries):
    // judged at the path the harness planted it, whatever name the probe reads it through.
    {.klass = C::kFsRaceRead, .name = "fs-race-read", .probe = "fs-race", .targets = true,
     .decided_by = PolicyField::kDenyRead, .expect = rules::race_read},
    // A write into a harness-mounted tmpfs (oracles/submount.cc): a submount is judged by where it
    // sits, so a root made read-only without MS_REC must not leave it writable.
    {.klass = C::kSubmountWrite, .name = "submount-write", .probe = "fs-write", .targets = true,
     .decided_by = PolicyField::kWritable, .expect = rules::submount_write},
    // write_file raced (oracles/fs_api.cc): judged by the write rule at the path the link names.
    {.klass = C::kFsApiRace, .name = "fs-api-race", .probe = kDriverFsProbe, .targets = true, .fs_api = true,
     .decided_by = PolicyField::kWritable, .expect = rules::race_write},
    // A connect to a harness-made bind mount of its listener's socket (oracles/bind_alias.cc): the
    // same socket under a name the sandbox may not know to hide, judged by the write rule there.
    {.klass = C::kBindAliasConnect, .name = "bind-alias-connect", .probe = "net-connect", .targets = true,
     .witness = true, .decided_by = PolicyField::kWritable, .expect = rules::bind_alias_connect},
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
