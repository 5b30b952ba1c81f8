// Expectations come from the policy alone: writable roots, deny-read paths, network mode, env rules.
#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation.h"
#include "tests/unit/error_code.h"

using namespace breakout;

namespace {

Policy base_policy(NetworkMode mode) {
  Policy p;
  p.name = "t";
  p.network = mode;
  p.deny_read = default_deny_read();
  p.writable_roots = {"extra"};
  p.env.inherit = {"PATH", "KEEP"};
  p.env.pinned = {{"http_proxy", "http://127.0.0.1:9"}};
  return p;
}

Expected exp(AttemptClass c, const std::string& target, const Policy& p) {
  const Target t = parse_target(target);
  return expect(c, &t, p, placeholder_roots()).value;
}

}  // namespace

TEST(Expectation, WritesOnlyInsideWritableRoots) {
  const Policy p = base_policy(NetworkMode::kNone);
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:workspace/a", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:extra/deep/a", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:sibling/a", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:parent/a", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:~/.bashrc", p), Expected::kDenied);
  // ".." must not smuggle a host path into the workspace by string prefix.
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:workspace/../sibling/a", p), Expected::kDenied);
  // A sibling whose name extends the workspace's is not inside it.
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:/breakout-tree/workspace2/a", p), Expected::kDenied);
}

TEST(Expectation, ReadsDeniedOnlyUnderDenyRead) {
  const Policy p = base_policy(NetworkMode::kNone);
  EXPECT_EQ(exp(AttemptClass::kFsRead, "fs:~/.ssh/id_ed25519", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFsRead, "fs:~/.ssh", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFsRead, "fs:~/.kube/config", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFsRead, "fs:~/.sshx", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kFsRead, "fs:sibling/notes.txt", p), Expected::kAllowed);
}

// The classifier's value-only answer (expected_fs) is expect_fs without the sentence: the
// same value for every class it takes, inside, outside and at the edge of each list.
TEST(Expectation, ValueOnlyAnswerAgreesWithTheExplainedOne) {
  const Policy p = base_policy(NetworkMode::kNone);
  const TreeRoots roots = placeholder_roots();
  const ResolvedPolicy r = resolve(p, roots);
  for (const char* t : {"workspace/a", "extra/deep/a", "extra", "sibling/a", "~/.ssh", "~/.ssh/id_ed25519", "~/.sshx",
                        "~/.kube/config", "parent/a", "/elsewhere"}) {
    const auto path = resolve_policy_path(t, roots);
    for (const AttemptClass c : {AttemptClass::kFsWrite, AttemptClass::kFsRead, AttemptClass::kRealHomeWrite,
                                 AttemptClass::kRealHomeRead})
      EXPECT_EQ(expected_fs(class_spec(c).fs, path, r), expect_fs(class_spec(c).fs, path, r).value) << t << " " << to_string(c);
  }
  EXPECT_THROW((void)expected_fs(class_spec(AttemptClass::kLifetime).fs, "/x", r), Error);
}

TEST(Expectation, SyscallAbiWritesFollowTheWriteRule) {
  const Policy p = base_policy(NetworkMode::kNone);
  EXPECT_EQ(exp(AttemptClass::kSyscallAbiWrite, "fs:workspace/x", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kSyscallAbiWrite, "fs:sibling/x", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kSyscallAbiWrite, "fs:~/.bashrc", p), Expected::kDenied);
}

TEST(Expectation, NetworkModes) {
  const Policy none = base_policy(NetworkMode::kNone), lo = base_policy(NetworkMode::kLoopback),
               full = base_policy(NetworkMode::kFull);
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:unix-workspace", none), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:tcp4-loopback", none), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:tcp4-loopback", lo), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:udp6-loopback", lo), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:tcp4-external", lo), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:tcp4-external", full), Expected::kAllowed);
  // The host's own LAN address is not loopback, though the kernel routes it over lo.
  for (const char* host : {"net:tcp4-host", "net:tcp6-host"}) {
    EXPECT_EQ(exp(AttemptClass::kNetConnect, host, none), Expected::kDenied) << host;
    EXPECT_EQ(exp(AttemptClass::kNetConnect, host, lo), Expected::kDenied) << host;
    EXPECT_EQ(exp(AttemptClass::kNetConnect, host, full), Expected::kAllowed) << host;
  }
}

TEST(Expectation, HostUnixSockets) {
  const Policy none = base_policy(NetworkMode::kNone), lo = base_policy(NetworkMode::kLoopback),
               full = base_policy(NetworkMode::kFull);
  // A path socket is judged by the write rule (unix(7)): denied in every mode.
  for (const Policy* p : {&none, &lo, &full})
    EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:unix-outside", *p), Expected::kDenied);
  Policy parent_writable = full;
  parent_writable.writable_roots = {"parent"};
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:unix-outside", parent_writable), Expected::kAllowed);
  // Abstract sockets belong to the network namespace: only full shares the host's.
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:abstract", none), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:abstract", lo), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kNetConnect, "net:abstract", full), Expected::kAllowed);
}

TEST(Expectation, LeakedDirectoryFdsFollowTheWriteRule) {
  const Policy p = base_policy(NetworkMode::kFull);
  EXPECT_EQ(exp(AttemptClass::kFdLeak, "fs:workspace", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kFdLeak, "fs:extra", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kFdLeak, "fs:sibling", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFdLeak, "fs:~", p), Expected::kDenied);
}

// cwd-write: the exec's cwd is the target; the write rule decides, whatever cwd was asked for.
TEST(Expectation, CwdWritesFollowTheWriteRule) {
  const Policy p = base_policy(NetworkMode::kNone);
  EXPECT_EQ(exp(AttemptClass::kCwdWrite, "fs:workspace/cwd", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kCwdWrite, "fs:extra", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kCwdWrite, "fs:sibling", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kCwdWrite, "fs:~", p), Expected::kDenied);
}

// path-hijack: a stub's marker is a write where it lands.
TEST(Expectation, PathHijackMarkersFollowTheWriteRule) {
  const Policy p = base_policy(NetworkMode::kFull);
  EXPECT_EQ(exp(AttemptClass::kPathHijack, "fs:workspace/marks", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kPathHijack, "fs:sibling", p), Expected::kDenied);
}

// fail-open: an enforcer that cannot work changes nothing about what is allowed.
TEST(Expectation, FailOpenWritesFollowTheWriteRule) {
  const Policy p = base_policy(NetworkMode::kNone);
  EXPECT_EQ(exp(AttemptClass::kFailOpen, "fs:sibling/new-file", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFailOpen, "fs:~/new-file", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFailOpen, "fs:workspace/new-file", p), Expected::kAllowed);
}

// spawner-follow and fs-race: where the write lands decides, whoever or whatever raced for it.
TEST(Expectation, SpawnerFollowAndRaceWritesFollowTheWriteRule) {
  const Policy p = base_policy(NetworkMode::kNone);
  for (const AttemptClass c : {AttemptClass::kSpawnerFollow, AttemptClass::kFsRace}) {
    EXPECT_EQ(exp(c, "fs:sibling", p), Expected::kDenied) << to_string(c);
    EXPECT_EQ(exp(c, "fs:~/.bashrc", p), Expected::kDenied) << to_string(c);
    EXPECT_EQ(exp(c, "fs:workspace/new-file", p), Expected::kAllowed) << to_string(c);
  }
}

// submount-write: a file system mounted below a path is judged as that path (nsjail's /run/user).
TEST(Expectation, SubmountWritesFollowTheWriteRuleWhereTheMountSits) {
  const Policy p = base_policy(NetworkMode::kNone);
  EXPECT_EQ(exp(AttemptClass::kSubmountWrite, "fs:sibling/run-user/new-file", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kSubmountWrite, "fs:~/run-user/new-file", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kSubmountWrite, "fs:workspace/run-user/new-file", p), Expected::kAllowed);
}

// bind-alias-connect: the harness's bind mount of a socket is judged by the write rule where it
// sits (sibling/: denied; workspace/: the control, allowed), in every network mode, like the
// original; an endpoint with no path socket of its own has no alias and is a schema error.
TEST(Expectation, BindAliasesFollowTheWriteRuleWhereTheAliasSits) {
  for (const NetworkMode mode : {NetworkMode::kNone, NetworkMode::kLoopback, NetworkMode::kFull}) {
    const Policy p = base_policy(mode);
    EXPECT_EQ(exp(AttemptClass::kBindAliasConnect, "net:unix-outside", p), Expected::kDenied);
    EXPECT_EQ(exp(AttemptClass::kBindAliasConnect, "net:unix-workspace", p), Expected::kAllowed);
  }
  const Policy p = base_policy(NetworkMode::kFull);
  for (const char* t : {"net:abstract", "net:ssh-agent", "net:tcp4-loopback", "fs:sibling"}) {
    const Target target = parse_target(t);
    EXPECT_EQ(test_util::code_of([&] { expect(AttemptClass::kBindAliasConnect, &target, p, placeholder_roots()); }),
              "bad-target")
        << t;
  }
}

// fs-race-read: a deny-read entry inside the writable workspace (policy workspace-deny-read)
// denies the file the harness planted there, whatever name a rename of its ancestor gives it;
// its sibling in the same layout is the control. The policy file itself parses and says so.
TEST(Expectation, RaceReadsFollowTheReadRuleAtThePlantedPath) {
  Policy p = base_policy(NetworkMode::kNone);
  p.deny_read.push_back("workspace/vault/secrets");
  EXPECT_EQ(exp(AttemptClass::kFsRaceRead, "fs:workspace/vault/secrets/key", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFsRaceRead, "fs:workspace/vault/open/key", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kFsRaceRead, "fs:workspace/vault/secretsx/key", p), Expected::kAllowed);
  // The entry denies reads only: the workspace around it, the entry included, stays writable.
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:workspace/vault", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:workspace/vault/secrets/key", p), Expected::kAllowed);
  const Target t = parse_target("fs:workspace/vault/secrets/key");
  EXPECT_NE(expect(AttemptClass::kFsRaceRead, &t, p, placeholder_roots()).why.find("renamed ancestor"),
            std::string::npos);
  const Policy shipped = load_policy_file(BREAKOUT_SOURCE_DIR "/scenarios/policies/workspace-deny-read.toml");
  EXPECT_EQ(exp(AttemptClass::kFsRaceRead, "fs:workspace/vault/secrets/key", shipped), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFsRaceRead, "fs:workspace/vault/open/key", shipped), Expected::kAllowed);
}

TEST(Expectation, EnvironmentInheritAndPinned) {
  const Policy p = base_policy(NetworkMode::kNone);
  EXPECT_EQ(exp(AttemptClass::kEnvLeak, "env:KEEP", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kEnvLeak, "env:http_proxy", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kEnvLeak, "env:AWS_SECRET_ACCESS_KEY", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kEnvLeak, "env:keep", p), Expected::kDenied) << "names are case-sensitive on Linux";
}

TEST(Expectation, LifetimeAndContracts) {
  const Policy p = base_policy(NetworkMode::kFull);
  EXPECT_EQ(expect(AttemptClass::kLifetime, nullptr, p, placeholder_roots()).value, Expected::kDenied);
  EXPECT_EQ(expect(AttemptClass::kTimeoutKill, nullptr, p, placeholder_roots()).value, Expected::kDenied);
  EXPECT_EQ(expect(AttemptClass::kOutputFlood, nullptr, p, placeholder_roots()).value, Expected::kHolds);
}

// deny_write wins over the writable roots, for every write class; protected-write also denies
// a directory holding an entry and a case variant of one, and nothing else beside it.
TEST(Expectation, DenyWriteWinsOverTheWritableRoots) {
  Policy p = base_policy(NetworkMode::kNone);
  p.deny_write = {"workspace/.git/hooks", "workspace/.mcp.json", "extra/locked"};
  for (const AttemptClass c : {AttemptClass::kFsWrite, AttemptClass::kProtectedWrite, AttemptClass::kIoUringWrite}) {
    EXPECT_EQ(exp(c, "fs:workspace/.git/hooks/pre-commit", p), Expected::kDenied) << to_string(c);
    EXPECT_EQ(exp(c, "fs:workspace/.git/hooks", p), Expected::kDenied) << to_string(c);
    EXPECT_EQ(exp(c, "fs:workspace/.mcp.json", p), Expected::kDenied) << to_string(c);
    EXPECT_EQ(exp(c, "fs:extra/locked/a", p), Expected::kDenied) << to_string(c);
    EXPECT_EQ(exp(c, "fs:workspace/.git/description", p), Expected::kAllowed) << to_string(c);
    EXPECT_EQ(exp(c, "fs:workspace/.mcp.json.bak", p), Expected::kAllowed) << to_string(c);
    EXPECT_EQ(exp(c, "fs:workspace/git/hooks/pre-commit", p), Expected::kAllowed) << to_string(c);
  }
  const Target t = parse_target("fs:workspace/.git/hooks/x");
  EXPECT_NE(expect(AttemptClass::kFsWrite, &t, p, placeholder_roots()).why.find("deny_write"), std::string::npos);
  // The value-only answer the classifier uses agrees.
  const ResolvedPolicy r = resolve(p, placeholder_roots());
  EXPECT_EQ(expected_fs(FsRule::kWrite, resolve_policy_path("workspace/.mcp.json", placeholder_roots()), r),
            Expected::kDenied);
  // The holder of an entry and a case variant: protected-write only.
  EXPECT_EQ(exp(AttemptClass::kProtectedWrite, "fs:workspace/.git", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kFsWrite, "fs:workspace/.git", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kProtectedWrite, "fs:workspace/.GIT/hooks/x", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kProtectedWrite, "fs:workspace/.MCP.json", p), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kProtectedWrite, "fs:workspace", p), Expected::kDenied);  // holds them all
  EXPECT_EQ(exp(AttemptClass::kProtectedWrite, "fs:workspace/git", p), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kProtectedWrite, "fs:sibling/.git/hooks/x", p), Expected::kDenied);  // outside anyway
}
