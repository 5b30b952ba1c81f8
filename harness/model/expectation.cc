// Expectation rules: one function per kind of target, each citing the policy field it applies.
#include "harness/model/expectation.h"

#include "harness/core/error.h"

namespace breakout {

namespace fs = std::filesystem;

const char* to_string(Expected e) {
  switch (e) {
    case Expected::kAllowed: return "allowed";
    case Expected::kDenied: return "denied";
    case Expected::kHolds: return "holds";
    case Expected::kObserved: return "observed";
  }
  return "?";
}

TreeRoots placeholder_roots() {
  return {"/breakout-tree", "/breakout-tree/workspace", "/breakout-tree/sibling",
          "/breakout-tree/home", "/breakout-tree/extra"};
}

namespace {

// The first entry of `list` that `path` lies within (nullptr: none).
const fs::path* first_within(const fs::path& path, const std::vector<fs::path>& list) {
  for (const auto& entry : list)
    if (path_within(path, entry)) return &entry;
  return nullptr;
}

// The fs write and read rules, each decided by the first entry of one list the path lies
// within. fs_rule() is the one place that maps a class to its rule: expect_fs() (with the
// sentence) and expected_fs() (the value alone, for the classifier) both take it from
// there, so the two cannot come to disagree.
struct FsRule {
  const std::vector<fs::path>& list;
  Expected (*value)(const fs::path* entry);
  std::string (*why)(const fs::path* entry);  // called only when the sentence is wanted
};

FsRule write_rule(const ResolvedPolicy& r) {
  return {r.writable, [](const fs::path* root) { return root ? Expected::kAllowed : Expected::kDenied; },
          [](const fs::path* root) {
            return root ? "inside writable root " + root->filename().string()
                        : std::string("outside every writable root (workspace and writable_roots)");
          }};
}

FsRule read_rule(const ResolvedPolicy& r) {
  return {r.deny_read, [](const fs::path* denied) { return denied ? Expected::kDenied : Expected::kAllowed; },
          [](const fs::path* denied) {
            return denied ? "under deny_read entry " + denied->string() : std::string("not under any deny_read entry");
          }};
}

FsRule fs_rule(AttemptClass klass, const ResolvedPolicy& r) {
  switch (klass) {
    case AttemptClass::kFsWrite:
    case AttemptClass::kRealHomeWrite: return write_rule(r);  // the real HOME changes where the tree is, not the rule
    case AttemptClass::kFsRead:
    case AttemptClass::kRealHomeRead: return read_rule(r);
    default: break;
  }
  throw Error("[bad-class] " + std::string(to_string(klass)) + " is not an fs-write or fs-read class");
}

Expectation explain(const FsRule& rule, const fs::path& path) {
  const fs::path* entry = first_within(path, rule.list);
  return {rule.value(entry), rule.why(entry)};
}

Expectation expect_write(const fs::path& path, const ResolvedPolicy& r) { return explain(write_rule(r), path); }
Expectation expect_read(const fs::path& path, const ResolvedPolicy& r) { return explain(read_rule(r), path); }

// The spawner's fs API (docs/drivers.md, capability fs) works for the sandbox on
// the host: confined to the writable roots, and never a deny_read path (deny wins).
Expectation expect_api_read(const fs::path& path, const ResolvedPolicy& r) {
  Expectation denied = expect_read(path, r);
  if (denied.value == Expected::kDenied) return denied;
  for (const auto& root : r.writable)
    if (path_within(path, root)) return {Expected::kAllowed, "the fs API reads inside writable root " + root.filename().string()};
  return {Expected::kDenied, "the fs API is confined to the writable roots (workspace and writable_roots)"};
}

Expectation expect_connect(const std::string& endpoint, NetworkMode mode, const ResolvedPolicy& r,
                           const TreeRoots& roots) {
  const std::string reach = endpoint_reach(endpoint);
  if (reach == "workspace-socket")
    return {Expected::kAllowed, "a unix socket inside the writable workspace is a file, reachable in every network mode"};
  const std::string m = std::string("network = ") + to_string(mode);
  if (reach == "host-socket") {
    // unix(7): "connecting to the socket object requires write permission on
    // it", so a path socket is governed by the write rule, not by the network
    // mode: outside every writable root it is a host service (docker.sock,
    // ssh-agent) the sandbox must not reach, whatever the network mode.
    Expectation e = expect_write(resolve_policy_path(kHostSocketPolicyPath, roots), r);
    e.why = "connecting to a path socket is a write on it (unix(7)); the socket is " + e.why;
    return e;
  }
  if (reach == "abstract-socket") {
    // Abstract sockets live in the network namespace (unix(7), network_namespaces(7)):
    // sharing the host's namespace shares D-Bus/X11-style abstract services with it.
    if (mode == NetworkMode::kFull) return {Expected::kAllowed, m + " shares the host's network namespace and its abstract sockets"};
    return {Expected::kDenied, m + " admits no host abstract unix socket (they belong to the host's network namespace)"};
  }
  switch (mode) {
    case NetworkMode::kFull: return {Expected::kAllowed, m};
    case NetworkMode::kLoopback:
      if (reach == "loopback") return {Expected::kAllowed, m + " admits the host's loopback"};
      // The host's own LAN address is routed over lo (ip route show table local), but
      // it is the address every other machine on that LAN uses too, and services bound
      // there are not loopback services (catalog §3).
      if (reach == "host-address")
        return {Expected::kDenied, m + " admits 127.0.0.0/8 and ::1 only, not the host's own non-loopback address"};
      return {Expected::kDenied, m + " admits nothing but the host's loopback"};
    case NetworkMode::kNone: return {Expected::kDenied, m};
  }
  return {Expected::kDenied, m};
}

Expectation expect_env(const std::string& name, const EnvPolicy& env) {
  for (const auto& n : env.inherit)
    if (n == name) return {Expected::kAllowed, name + " is in env.inherit"};
  if (env.pinned.count(name)) return {Expected::kAllowed, name + " is pinned by the policy"};
  return {Expected::kDenied, name + " is neither inherited nor pinned"};
}

// The spawner's pinned variables (policy env.pinned, the driver's hello, what a
// baseline exec shows) must win over the caller, in any spelling (seed 002
// comment 5: caller env merged after the proxy poisoning).
Expectation expect_override(const std::string& form, const EnvPolicy& env) {
  if (form == "control") {
    for (const auto& n : env.inherit)
      if (n == kOverrideControlVar)
        return {Expected::kAllowed, std::string(kOverrideControlVar) + " is inherited and not pinned: the caller's value must arrive"};
    return {Expected::kDenied, std::string(kOverrideControlVar) + " is not in env.inherit"};
  }
  return {Expected::kDenied, "pinned variables hold against a caller override (" + form + ")"};
}

// Recon: the one promise of a policy its outside view can check (policy.h: "a fresh empty
// netns is" network = none; the abstract-socket rule above for the same reason). Other
// modes promise nothing recon can check: the record is informational (skip, never pass).
Expectation expect_recon(const Policy& policy) {
  const std::string m = std::string("network = ") + to_string(policy.network);
  if (policy.network == NetworkMode::kNone)
    return {Expected::kDenied, m + ": the process must not share the host's network namespace"};
  return {Expected::kObserved, m + " promises nothing recon can check from outside: informational (skip, never pass)"};
}

}  // namespace

Expectation expect_fs(AttemptClass klass, const fs::path& path, const ResolvedPolicy& r) {
  return explain(fs_rule(klass, r), path);
}

Expected expected_fs(AttemptClass klass, const fs::path& path, const ResolvedPolicy& r) {
  const FsRule rule = fs_rule(klass, r);
  return rule.value(first_within(path, rule.list));
}

Expectation expect(AttemptClass klass, const Target* target, const Policy& policy,
                   const TreeRoots& roots) {
  if (is_contract(klass)) return {Expected::kHolds, "execution contract"};
  if (klass == AttemptClass::kLifetime)
    return {Expected::kDenied, "no process may outlive the spawn it belongs to"};
  if (klass == AttemptClass::kTimeoutKill)
    return {Expected::kDenied, "a timeout kills the whole process tree"};
  if (klass == AttemptClass::kSessionShutdown)
    return {Expected::kDenied, "shutdown ends every process of every exec of the session, also of concurrent ones"};
  if (klass == AttemptClass::kBootFailure)
    return {Expected::kDenied, "a refused boot leaves the host exactly as it was (files, modes, owners, xattrs, ACLs)"};
  if (klass == AttemptClass::kSessionHygiene)
    return {Expected::kDenied,
            "after shutdown nothing is left: no process, and no change outside the workspace's contents"};
  if (klass == AttemptClass::kSessionSetup)
    return {Expected::kDenied,
            "boot may narrow access or grant read/traverse outside the writable roots, never widen it (no write "
            "grant, no removed deny, no new owner there)"};
  if (klass == AttemptClass::kRecon) return expect_recon(policy);
  // `if (!ok) throw`, not check(ok, message): the message is built for a failure only, not per target.
  if (target == nullptr) throw Error("attempt class " + std::string(to_string(klass)) + " needs a target");
  switch (klass) {
    case AttemptClass::kFsWrite:
    case AttemptClass::kFsRead:
    case AttemptClass::kRealHomeWrite:  // the real HOME changes where the tree is, not the rule
    case AttemptClass::kRealHomeRead: {
      if (target->kind != TargetKind::kPath) throw Error("[bad-target] " + target->text + " is not a path target");
      return expect_fs(klass, resolve_policy_path(target->value, roots), resolve(policy, roots));
    }
    case AttemptClass::kFsApiWrite:
    case AttemptClass::kFsApiRead: {
      if (target->kind != TargetKind::kPath) throw Error("[bad-target] " + target->text + " is not a path target");
      const fs::path path = resolve_policy_path(target->value, roots);
      const ResolvedPolicy r = resolve(policy, roots);
      Expectation e = klass == AttemptClass::kFsApiWrite ? expect_write(path, r) : expect_api_read(path, r);
      e.why = "through the spawner's fs API: " + e.why;
      return e;
    }
    case AttemptClass::kFdLeak: {
      // The caller leaks an open directory fd for the target (run_attempt.cc);
      // a write through it is judged exactly like any other write there.
      if (target->kind != TargetKind::kPath) throw Error("[bad-target] " + target->text + " is not a path target");
      Expectation e = expect_write(resolve_policy_path(target->value, roots), resolve(policy, roots));
      e.why = "writing through a leaked directory fd is a write in that directory, " + e.why;
      return e;
    }
    case AttemptClass::kIoUringWrite: {
      // IORING_OP_OPENAT is a write like any other: the mechanism does not change the rule.
      if (target->kind != TargetKind::kPath) throw Error("[bad-target] " + target->text + " is not a path target");
      Expectation e = expect_write(resolve_policy_path(target->value, roots), resolve(policy, roots));
      e.why = "a file created through io_uring is a write, " + e.why;
      return e;
    }
    case AttemptClass::kSyscallAbiWrite: {
      // The i386/x32 ABI changes the syscall number, not the path walk: a write like any other.
      if (target->kind != TargetKind::kPath) throw Error("[bad-target] " + target->text + " is not a path target");
      Expectation e = expect_write(resolve_policy_path(target->value, roots), resolve(policy, roots));
      e.why = "a file created through the foreign syscall ABI is a write, " + e.why;
      return e;
    }
    case AttemptClass::kNetConnect:
    case AttemptClass::kRealNetConnect:  // the user's own external listener: external, like any other
    case AttemptClass::kIoUringConnect: {  // IORING_OP_CONNECT: the mechanism does not change the rule
      if (target->kind != TargetKind::kEndpoint) throw Error("[bad-target] " + target->text + " is not an endpoint");
      return expect_connect(target->value, policy.network, resolve(policy, roots), roots);
    }
    case AttemptClass::kEnvPinned:
      if (target->kind != TargetKind::kEnvOverride) throw Error("[bad-target] " + target->text + " is not a pin: form");
      return expect_override(target->value, policy.env);
    case AttemptClass::kEnvLeak:
      if (target->kind != TargetKind::kEnvVar) throw Error("[bad-target] " + target->text + " is not a variable");
      return expect_env(target->value, policy.env);
    case AttemptClass::kProcessReach:
    case AttemptClass::kIpcReach:
    case AttemptClass::kKeyRead:
    case AttemptClass::kTtyInject:
    case AttemptClass::kDnsQuery:
    case AttemptClass::kRegistryWrite:
    case AttemptClass::kNamedObjectReach:
    case AttemptClass::kDesktopReach: return expect_host_object(klass, *target, policy);
    default: break;
  }
  throw Error("no expectation rule for class " + std::string(to_string(klass)));
}

}  // namespace breakout
