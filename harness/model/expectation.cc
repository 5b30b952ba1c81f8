// Expectation rules: one function per kind of target, each citing the policy field it applies.
#include "harness/model/expectation.h"

#include "harness/core/error.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

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

const char* role_of(Expected e) {
  switch (e) {
    case Expected::kDenied: return "deny";
    case Expected::kAllowed: return "allow";
    case Expected::kObserved: return "observe";
    case Expected::kHolds: return "contract";
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
// `denied_first` (the write rule's deny_write) is looked at before `list`: a protected
// path inside a writable root stays protected (deny wins, as deny_read does for reads).
struct PathRule {
  const std::vector<fs::path>& list;
  Expected (*value)(const fs::path* entry);
  std::string (*why)(const fs::path* entry);  // called only when the sentence is wanted
  const std::vector<fs::path>* denied_first = nullptr;
};

PathRule write_rule(const ResolvedPolicy& r) {
  return {r.writable, [](const fs::path* root) { return root ? Expected::kAllowed : Expected::kDenied; },
          [](const fs::path* root) {
            return root ? "inside writable root " + root->filename().string()
                        : std::string("outside every writable root (workspace and writable_roots)");
          },
          &r.deny_write};
}

PathRule read_rule(const ResolvedPolicy& r) {
  return {r.deny_read, [](const fs::path* denied) { return denied ? Expected::kDenied : Expected::kAllowed; },
          [](const fs::path* denied) {
            return denied ? "under deny_read entry " + denied->string() : std::string("not under any deny_read entry");
          }};
}

PathRule fs_rule(AttemptClass klass, const ResolvedPolicy& r) {
  switch (class_spec(klass).fs) {  // the rule's kind, not the class: the table says which
    case FsRule::kWrite: return write_rule(r);
    case FsRule::kRead: return read_rule(r);
    case FsRule::kNone: break;
  }
  throw Error("bad-class", std::string(to_string(klass)) + " is not an fs-write or fs-read class");
}

Expectation explain(const PathRule& rule, const fs::path& path) {
  if (rule.denied_first)
    if (const fs::path* d = first_within(path, *rule.denied_first))
      return {Expected::kDenied, "under deny_write entry " + d->string() + ", which wins over the writable roots"};
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
      // there are not loopback services.
      if (reach == "host-address")
        return {Expected::kDenied, m + " admits 127.0.0.0/8 and ::1 only, not the host's own non-loopback address"};
      return {Expected::kDenied, m + " admits nothing but the host's loopback"};
    case NetworkMode::kNone: return {Expected::kDenied, m};
    case NetworkMode::kProxy:
      return {Expected::kDenied, m + " lets traffic out only through the sandbox's proxy; a direct connect reaches nothing, "
                                     "not even the proxy's allowed destination"};
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
// baseline exec shows) must win over the caller, in any spelling (AstrBot PR #9895
// review, comment 5: caller env merged after the proxy poisoning).
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
  const PathRule rule = fs_rule(klass, r);
  if (rule.denied_first && first_within(path, *rule.denied_first)) return Expected::kDenied;
  return rule.value(first_within(path, rule.list));
}

Expectation expect(AttemptClass klass, const Target* target, const Policy& policy, const TreeRoots& roots) {
  const ClassSpec& spec = class_spec(klass);
  if (spec.expect == nullptr) return {spec.fixed, spec.why};
  // `if (!ok) throw`, not check(ok, message): the message is built for a failure only, not per target.
  if (spec.targets && target == nullptr) throw Error("attempt class " + std::string(spec.name) + " needs a target");
  return spec.expect({klass, target, policy, roots});
}

namespace rules {

namespace {

const Target& aimed(const RuleInput& in, TargetKind kind, const char* what) {
  if (in.target->kind != kind) throw Error("bad-target", in.target->text + " is not " + what);
  return *in.target;
}

fs::path policy_path(const RuleInput& in) {
  return resolve_policy_path(aimed(in, TargetKind::kPath, "a path target").value, in.roots);
}

// A write by another mechanism than openat(2) in the probe: the mechanism does not change the rule.
Expectation write_by(const RuleInput& in, const std::string& how) {
  Expectation e = expect_write(policy_path(in), resolve(in.policy, in.roots));
  e.why = how + e.why;
  return e;
}

}  // namespace

// The real HOME changes where the tree is, not the rule.
Expectation fs_path(const RuleInput& in) { return expect_fs(in.klass, policy_path(in), resolve(in.policy, in.roots)); }

Expectation fs_api_write(const RuleInput& in) { return write_by(in, "through the spawner's fs API: "); }

Expectation fs_api_read(const RuleInput& in) {
  const fs::path path = policy_path(in);
  Expectation e = expect_api_read(path, resolve(in.policy, in.roots));
  e.why = "through the spawner's fs API: " + e.why;
  return e;
}

// protected-write (classes/fs_write/protected_write.cc): a write at a protected path, deny_write first.
// Two spellings reach a protected path without lying within its entry: a directory that holds
// one (renaming or removing it takes the protected path along), and a case variant, which names
// it on a file system that folds case (the oracle skips it where the file system does not).
Expectation protected_path(const RuleInput& in) {
  const fs::path path = policy_path(in);
  const ResolvedPolicy r = resolve(in.policy, in.roots);
  for (const auto& entry : r.deny_write)
    if (path != entry && path_within(entry, path))
      return {Expected::kDenied, "holds deny_write entry " + entry.string() + ": moving or removing it takes that along"};
  if (const fs::path* entry = case_variant_of(path, r.deny_write))
    return {Expected::kDenied, "a case variant of deny_write entry " + entry->string() +
                                   " (the same file where the file system folds case)"};
  return expect_write(path, r);
}

// The caller leaks an open directory fd for the target (class fd-leak, classes/fs_write/fs_change.cc):
// a write through it is judged exactly like any other write there.
Expectation leaked_fd_write(const RuleInput& in) {
  return write_by(in, "writing through a leaked directory fd is a write in that directory, ");
}

// IORING_OP_OPENAT is a write like any other.
Expectation cwd_write(const RuleInput& in) {
  return write_by(in, "a cwd the exec asked for grants nothing by itself: a write there is a write in that directory, ");
}

Expectation path_hijack(const RuleInput& in) {
  return write_by(in, "a program found on the caller's PATH writes with the rights of where it runs: ");
}

Expectation fail_open(const RuleInput& in) {
  return write_by(in, "an enforcer that cannot work is a reason to refuse, not to run unconfined: ");
}

// The spawner's own write through a link the sandbox planted lands at the link's target: the
// sandbox's reach, widened by a host process that trusts a path the sandbox could replace.
Expectation spawner_follow(const RuleInput& in) {
  return write_by(in, "a host-side write through a link the sandbox planted is a write at the link's target: ");
}

// A race changes when the path is looked at, not what it names at the write: the kernel's walk
// at open(2)/renameat2(2) is what a sandbox must judge.
Expectation race_write(const RuleInput& in) { return write_by(in, "a write won by a race is a write, "); }

// A mount inside the tree (a tmpfs standing in for /run/user/$UID) is judged by where it sits: a
// sandbox that makes the root read-only without MS_REC leaves it writable (nsjail).
Expectation submount_write(const RuleInput& in) {
  return write_by(in, "a file system mounted below a path is that path's for the write rule: ");
}

// A deny-read mask protects the file, not its spelling: a rename of an ancestor moves the file
// (and a mount on it) to another name, and a read of it there is still the read the policy denies.
Expectation race_read(const RuleInput& in) {
  Expectation e = expect_read(policy_path(in), resolve(in.policy, in.roots));
  e.why = "the file under a renamed ancestor is the same file, " + e.why;
  return e;
}

Expectation io_uring_write(const RuleInput& in) { return write_by(in, "a file created through io_uring is a write, "); }

// The i386/x32 ABI changes the syscall number, not the path walk.
Expectation abi_write(const RuleInput& in) {
  return write_by(in, "a file created through the foreign syscall ABI is a write, ");
}

// net-connect; real-net-connect (the user's own external listener: external, like any other);
// io-uring-connect (IORING_OP_CONNECT: the mechanism does not change the rule).
Expectation connect(const RuleInput& in) {
  return expect_connect(aimed(in, TargetKind::kEndpoint, "an endpoint").value, in.policy.network,
                        resolve(in.policy, in.roots), in.roots);
}

// bind-alias-connect: a bind mount of a path socket is the same socket (mount(2) MS_BIND), and
// connecting to it needs write permission on it (unix(7)), so the write rule decides where the
// alias sits, whatever the network mode, as for the original (expect_connect's host-socket).
Expectation bind_alias_connect(const RuleInput& in) {
  const Target& t = aimed(in, TargetKind::kEndpoint, "an endpoint");
  const char* alias = bind_alias_policy_path(t.value);
  if (alias == nullptr)
    throw Error("bad-target", "bind-alias-connect aims at net:unix-outside or net:unix-workspace, not " + t.text);
  Expectation e = expect_write(resolve_policy_path(alias, in.roots), resolve(in.policy, in.roots));
  e.why = "a bind mount of a socket is the same socket, and connecting is a write on it (unix(7)): the alias is " + e.why;
  return e;
}

// Through the sandbox's proxy (class proxy-connect): under network = "proxy" the proxy admits the
// destination the spawner was told to allow and nothing else; under any other mode the route does
// not change what may be reached (a probe with no proxy to use connects directly, as curl does).
Expectation proxy_connect(const RuleInput& in) {
  const std::string& endpoint = aimed(in, TargetKind::kEndpoint, "an endpoint").value;
  if (in.policy.network == NetworkMode::kProxy && endpoint_reach(endpoint) == "external") {
    if (endpoint == "proxy-allowed")
      return {Expected::kAllowed, "network = proxy: the sandbox's proxy admits the destination it was told to allow"};
    return {Expected::kDenied, "network = proxy: the sandbox's proxy admits only the destination it was told to allow"};
  }
  // An allowlisted name that resolves to loopback (proxy.name-loopback): the proxy runs on the
  // host, so dialling that address would hand the box every service on the host's loopback.
  if (in.policy.network == NetworkMode::kProxy && endpoint_reach(endpoint) == "loopback")
    return {Expected::kDenied, "network = proxy: the sandbox's proxy admits allowlisted destinations, never the host's "
                               "loopback, whatever an allowlisted name resolves to"};
  return connect(in);
}

Expectation env_leak(const RuleInput& in) {
  return expect_env(aimed(in, TargetKind::kEnvVar, "a variable").value, in.policy.env);
}

Expectation env_override(const RuleInput& in) {
  return expect_override(aimed(in, TargetKind::kEnvOverride, "a pin: form").value, in.policy.env);
}

Expectation host_object(const RuleInput& in) { return expect_host_object(in.klass, *in.target, in.policy); }

Expectation recon(const RuleInput& in) { return expect_recon(in.policy); }

}  // namespace rules

}  // namespace breakout
