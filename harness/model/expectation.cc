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

PathRule fs_rule(FsRule rule, const ResolvedPolicy& r) {
  switch (rule) {  // the rule's kind, not the class: the class table says which (ClassSpec::fs)
    case FsRule::kWrite: return write_rule(r);
    case FsRule::kRead: return read_rule(r);
    case FsRule::kNone: break;
  }
  throw Error("bad-class", "not an fs-write or fs-read rule: the class has no fs rule");
}

Expectation explain(const PathRule& rule, const fs::path& path) {
  if (rule.denied_first)
    if (const fs::path* d = first_within(path, *rule.denied_first))
      return {Expected::kDenied, "under deny_write entry " + d->string() + ", which wins over the writable roots"};
  const fs::path* entry = first_within(path, rule.list);
  return {rule.value(entry), rule.why(entry)};
}

Expectation expect_write(const fs::path& path, const ResolvedPolicy& r) { return explain(write_rule(r), path); }

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

}  // namespace

Expectation expect_fs(FsRule rule, const fs::path& path, const ResolvedPolicy& r) {
  return explain(fs_rule(rule, r), path);
}

Expected expected_fs(FsRule fs, const fs::path& path, const ResolvedPolicy& r) {
  const PathRule rule = fs_rule(fs, r);
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

Expectation write_at(const fs::path& path, const ResolvedPolicy& r) { return explain(write_rule(r), path); }
Expectation read_at(const fs::path& path, const ResolvedPolicy& r) { return explain(read_rule(r), path); }

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

// The real HOME changes where the tree is, not the rule.
Expectation fs_path(const RuleInput& in) {
  return expect_fs(class_spec(in.klass).fs, policy_path(in), resolve(in.policy, in.roots));
}

// A race changes when the path is looked at, not what it names at the write: the kernel's walk
// at open(2)/renameat2(2) is what a sandbox must judge.
Expectation race_write(const RuleInput& in) { return write_by(in, "a write won by a race is a write, "); }

// net-connect; real-net-connect (the user's own external listener: external, like any other);
// io-uring-connect (IORING_OP_CONNECT: the mechanism does not change the rule).
Expectation connect(const RuleInput& in) {
  return expect_connect(aimed(in, TargetKind::kEndpoint, "an endpoint").value, in.policy.network,
                        resolve(in.policy, in.roots), in.roots);
}

}  // namespace rules

}  // namespace breakout
