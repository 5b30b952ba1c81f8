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

// What an attempt tries, and therefore which outside oracle judges it. Each class's
// traits, expectation rule and oracle are its entry in the class table (class_spec.h).
enum class AttemptClass {
  kFsWrite,       // change something on the host file system      -> snapshot diff
  kFsRead,        // read a file                                    -> canary token seen outside
  kNetConnect,    // deliver a nonce to an endpoint                 -> listener received it
  kEnvLeak,       // see a caller environment variable              -> canary token in output
  kFdLeak,        // write through a directory fd the caller leaked -> snapshot diff
  kLifetime,      // leave a process running after the spawn ended  -> heartbeat still advancing
  kTimeoutKill,   // survive the timeout kill                       -> heartbeat still advancing
  kExitCode,      // contract: exit code propagated                 -> spawner's exit status
  kExitSignal,    // contract: death by signal propagated           -> spawner's exit status
  kCwd,           // contract: requested cwd honoured               -> marker file in that dir
  kOutputFlood,   // contract: stdout+stderr complete and exact     -> bytes captured outside
  kNoTimeout,     // contract: "no timeout" means none              -> marker file after the sleep
  kEnvPinned,     // override a variable the spawner pins           -> override canary in output
  // Session classes: need a spawner with boot/shutdown (drivers), oracles in attempt/oracles/session_*.cc.
  kSessionShutdown,  // outlive a shutdown sent while execs run    -> heartbeats still advancing
  kBootFailure,      // a refused boot leaves host changes behind  -> snapshot diff (ACLs, xattrs)
  kSessionHygiene,   // boot+exec+shutdown leaves host changes     -> snapshot diff outside the workspace
  kSessionSetup,     // boot widens access outside the roots       -> boot's own snapshot diff, rights classified
  // Host objects (target "ipc:<name>", model/host_object.h; oracle in attempt/oracles/host_object.cc):
  kProcessReach,  // ptrace/read/signal a host process            -> victim's canary, tracer, signal, state
  kIpcReach,      // SysV/POSIX IPC, host /tmp and /var/tmp files, Windows shared locations -> object changed, canary in output
  kKeyRead,       // read a key from the host's keyring            -> key's canary in output
  kTtyInject,     // TIOCSTI into the caller's terminal            -> nonce in the pty's input queue
  kDnsQuery,      // resolve a nonce name at a harness resolver   -> the resolver saw the name
  kIoUringWrite,  // create a file through io_uring (no openat)    -> snapshot diff, as fs-write
  kIoUringConnect,  // connect + send through io_uring (no connect(2)) -> listener received the nonce
  kSyscallAbiWrite,  // create a file through the i386/x32 syscall ABI -> snapshot diff, as fs-write
  kRegistryWrite,    // Windows: set a value under a harness-watched HKCU key -> the key's value snapshot changed
  kNamedObjectReach, // Windows: a harness-owned named pipe / event  -> the pipe received the nonce, the event is set
  kDesktopReach,     // Windows: a harness-owned window / the clipboard -> the window got the nonce, the canary read, the clipboard changed
  // Real-host mode only (`run --real-host`, docs/real-host.md): the real HOME, never planted into but canaries.
  kRealHomeRead,   // read a real secret under the real HOME        -> keyed digest of its bytes in output
  kRealHomeWrite,  // create a canary-named file in the real HOME   -> the file exists afterwards
  kRealNetConnect, // connect to the user's external listener      -> `breakout listen` there saw the nonce
  // The spawner's own file API (driver capability fs, attempt/oracles/fs_api.cc); no probe runs:
  kFsApiWrite,    // ask the driver to write a nonce at a path      -> snapshot diff, as fs-write
  kFsApiRead,     // ask the driver to read a canary at a path      -> the canary token in its answer
  // Recon (harness/attempt/oracles/recon.cc): the probe only holds still; the harness reads its
  // confinement from the host (/proc, the job's token) and compares it with the policy's promises.
  kRecon,         // be confined as the policy promises           -> namespaces/token read from outside
  // Protected paths inside writable roots (policy deny_write; oracles/protected_write.cc):
  kProtectedWrite, // write .git/hooks, .codex, .mcp.json... in the workspace -> snapshot diff
  // Through the sandbox's own proxy (network = "proxy"; probe net-connect --route):
  kProxyConnect,   // deliver a nonce through the proxy (CONNECT, absolute URI, SOCKS5) -> listener received it
  // An exec request that widens the box (oracles/fs_change.cc): the exec's cwd outside the workspace.
  kCwdWrite,       // write a relative file from a cwd outside the roots -> snapshot diff, as fs-write
  // Helpers planted first on the caller's PATH (oracles/path_hijack.cc):
  kPathHijack,     // stubs in workspace/.bin mark where they ran        -> snapshot diff, as fs-write
  // The spawner started where its enforcer cannot work (oracles/fail_open.cc):
  kFailOpen,       // a write outside when bwrap/firejail on PATH fail    -> snapshot diff, as fs-write
  // A listener inside the sandbox (oracles/inbound.cc):
  kNetInbound,     // listen, and wait for the host to connect in          -> the harness's own connect got the nonce
  // The spawner's own later writes at paths the sandbox can replace (oracles/spawner_follow.cc):
  kSpawnerFollow,  // plant a link where the spawner writes every exec   -> the link's target, by snapshot
  // Races between a path check and the write (probes/fs-race.cc):
  kFsRace,         // a flipping symlink, a RENAME_EXCHANGE with an outside dir -> snapshot diff, as fs-write
  // Windows reads past the sandbox's token (host/win/registry_secret.h, raw_device.h):
  kRegistryRead,   // read a value of a harness-made HKCU/HKLM key     -> the key's canary in the output
  kDeviceRead,     // read the first sector of \\.\PhysicalDrive0      -> keyed digest of the harness's own read in the output
  // Socket families besides TCP/UDP/unix (host/posix/net_family_objects.h):
  kNetFamily,      // ICMP echo, NETLINK_ROUTE, AF_VSOCK at harness objects -> the harness's reader, link or listener saw the nonce
  // A deny-read directory inside a writable root, its ancestor renamed (probes/fs-race.cc --op rename-read):
  kFsRaceRead,     // rename the ancestor, then (or while) read the file     -> canary token seen outside
  // A writable submount under a read-only root (oracles/submount.cc mounts a tmpfs in the tree):
  kSubmountWrite,  // write into the harness's tmpfs outside the roots (nsjail's /run/user) -> snapshot diff of the mount
  // The spawner's own fs API raced (oracles/fs_api.cc): a link in the workspace flips while write_file runs.
  kFsApiRace,      // write_file through a flipping workspace symlink   -> snapshot diff, as fs-write
  // The host socket at a second name the host made (oracles/bind_alias.cc bind-mounts it in the tree):
  kBindAliasConnect,  // connect to the harness's bind mount of its listener's socket -> the listener received the nonce
  kCount,  // not a class: the number of classes (keep last; class_table.cc has one entry per class)
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
  // (host/name_server.h; it resolves only for network = "proxy" spawns). Without it: a skip.
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
