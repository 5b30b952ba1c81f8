// Declared refusals ([refuses.<mechanism>]): which targets need a mechanism, what a profile
// declares, how the planner pairs a refused control with witnessed denials, and how a refused
// control is applied to the denials it pairs with.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/attempt/record.h"
#include "harness/attempt/witness.h"
#include "harness/core/error.h"
#include "harness/driver/protocol.h"
#include "harness/model/declared_refusal.h"
#include "harness/model/mechanism.h"
#include "harness/model/verdict.h"
#include "harness/run/plan.h"
#include "harness/run/runner.h"
#include "harness/spawner/spawner.h"
#include "harness/spawner/template_spawner.h"

using namespace breakout;

namespace {

const char* kRefusalProfile = R"toml(
name = "r"
description = "d"
requires = []
command = ["t", "{argv...}"]
writable_root = []
deny_read_dir = []
deny_read_file = []
[refuses.af_unix]
when = ["none"]
why = "its seccomp filter fails connect(2)"
[network]
none = []
full = []
)toml";

Policy policy_with(NetworkMode mode) {
  Policy p;
  p.name = mode == NetworkMode::kNone ? "off" : "on";
  p.network = mode;
  return p;
}

Suite unix_suite(NetworkMode mode) {
  Suite s;
  s.name = "t";
  s.policies = {policy_with(mode)};
  s.attempts = parse_attempts_text(R"(
[[attempt]]
id = "t.unix"
title = "t"
description = "d"
reference = "r"
platforms = ["linux"]
class = "net-connect"
probe = "net-connect"
args = ["--target", "{target}", "--nonce", "{nonce}"]
targets = ["net:unix-workspace", "net:abstract"]

[[attempt]]
id = "t.write"
title = "t"
description = "d"
reference = "r"
platforms = ["linux"]
class = "fs-write"
probe = "fs-write"
args = ["--op", "create", "--path", "{target}"]
targets = ["fs:workspace/new", "fs:sibling/new"]
)",
                                   "t");
  return s;
}

AttemptRecord rec(const std::string& id, const std::string& role, Verdict v) {
  AttemptRecord r;
  r.id = id;
  r.group = "g@p";
  r.role = role;
  r.verdict = v;
  r.reason = "listener never received the nonce";
  return r;
}

}  // namespace

TEST(Refusal, UnixTargetsNeedAfUnixAndNothingElseDoes) {
  for (const char* t : {"net:unix-workspace", "net:unix-outside", "net:ssh-agent", "net:abstract", "ipc:dns-workspace"})
    EXPECT_EQ(mechanism_of(parse_target(t)), Mechanism::kAfUnix) << t;
  for (const char* t : {"net:tcp4-loopback", "net:udp4-external", "net:proxy-allowed", "ipc:dns-loopback",
                        "fs:workspace/x", "env:HOME"})
    EXPECT_FALSE(mechanism_of(parse_target(t)).has_value()) << t;
  EXPECT_EQ(mechanism_from(to_string(Mechanism::kAfUnix)), Mechanism::kAfUnix);
  EXPECT_EQ(mechanism_from("ptrace"), Mechanism::kPtrace);
  EXPECT_EQ(mechanism_from("io_uring"), Mechanism::kIoUring);
  EXPECT_FALSE(mechanism_from("AF_UNIX").has_value());
}

TEST(Refusal, ProfileDeclaresPerNetworkMode) {
  auto s = make_template_spawner(parse_profile_text(kRefusalProfile, "r"));
  const auto off = s->refuses(Mechanism::kAfUnix, policy_with(NetworkMode::kNone));
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(*off, "r refuses af_unix under network = none: its seccomp filter fails connect(2)");
  EXPECT_FALSE(s->refuses(Mechanism::kAfUnix, policy_with(NetworkMode::kFull)).has_value());
  EXPECT_FALSE(make_none_spawner()->refuses(Mechanism::kAfUnix, policy_with(NetworkMode::kNone)).has_value());
}

TEST(Refusal, ProfileSchemaRejectsWhatItCannotMean) {
  const std::string base = std::string(kRefusalProfile).substr(0, std::string(kRefusalProfile).find("[refuses"));
  const std::string net = "[network]\nnone = []\n";
  EXPECT_THROW(parse_profile_text(base + "[refuses.keyctl]\nwhy = \"x\"\n" + net, "r"), Error);          // unknown mechanism
  EXPECT_THROW(parse_profile_text(base + "[refuses.af_unix]\nwhen = [\"none\"]\n" + net, "r"), Error);    // no why
  EXPECT_THROW(parse_profile_text(base + "[refuses.af_unix]\nwhy = \"\"\n" + net, "r"), Error);          // empty why
  EXPECT_THROW(parse_profile_text(base + "[refuses.af_unix]\nwhy = \"x\"\nwhen = [\"off\"]\n" + net, "r"), Error);
  EXPECT_THROW(parse_profile_text(base + "[refuses.af_unix]\nwhy = \"x\"\nsince = 1\n" + net, "r"), Error);
  EXPECT_NO_THROW(parse_profile_text(base + "[refuses.af_unix]\nwhy = \"x\"\n" + net, "r"));
}

TEST(Refusal, PlannerMarksTheRefusedControlAndWitnessesItsDenials) {
  auto s = make_template_spawner(parse_profile_text(kRefusalProfile, "r"));
  const Suite off = unix_suite(NetworkMode::kNone);
  const auto plan = plan_executions(off, *s, nullptr, {.only = "", .platform = "linux"});
  int controls = 0, denials = 0;
  for (const auto& ex : plan) {
    const bool unix_group = ex.attempt->id == "t.unix";
    if (unix_group && ex.expectation.value == Expected::kAllowed) {
      ++controls;
      EXPECT_NE(ex.refused.find("r refuses af_unix"), std::string::npos) << ex.id;
      EXPECT_FALSE(ex.witness);
    } else if (unix_group) {  // net:abstract needs af_unix too: refused or unseen, it is the declared limit
      ++denials;
      EXPECT_TRUE(ex.witness) << ex.id;
      EXPECT_NE(ex.refused.find("r refuses af_unix"), std::string::npos) << ex.id;
    } else {  // another group, no refused mechanism: as before
      EXPECT_TRUE(ex.refused.empty()) << ex.id;
      EXPECT_FALSE(ex.witness) << ex.id;
    }
  }
  EXPECT_EQ(controls, 1);
  EXPECT_EQ(denials, 1);
  // network on: not declared, nothing changes; none: nothing declared.
  for (const auto& ex : plan_executions(unix_suite(NetworkMode::kFull), *s, nullptr, {.only = "", .platform = "linux"}))
    EXPECT_TRUE(ex.refused.empty() && !ex.witness) << ex.id;
  for (const auto& ex : plan_executions(off, *make_none_spawner(), nullptr, {.only = "", .platform = "linux"}))
    EXPECT_TRUE(ex.refused.empty() && !ex.witness) << ex.id;
}

TEST(Refusal, WitnessedDenialStandsOnARefusedControl) {
  auto control = rec("control", "allow", Verdict::kSkip);
  control.refused = "r refuses af_unix under network = none: x";
  auto witnessed = rec("deny", "deny", Verdict::kPass);
  witnessed.witnessed = true;
  std::vector<AttemptRecord> records = {control, witnessed};
  apply_controls(records);
  EXPECT_EQ(records[1].verdict, Verdict::kPass);
  EXPECT_NE(records[1].reason.find("declared refusal"), std::string::npos) << records[1].reason;
  EXPECT_EQ(records[1].controls, std::vector<std::string>{"control"});
}

TEST(Refusal, NoWitnessOrNoDeclarationStaysAnError) {
  auto refused = rec("control", "allow", Verdict::kSkip);
  refused.refused = "declared";
  std::vector<AttemptRecord> unwitnessed = {refused, rec("deny", "deny", Verdict::kPass)};
  apply_controls(unwitnessed);
  EXPECT_EQ(unwitnessed[1].verdict, Verdict::kError);
  // A control skipped for any other reason does not excuse a witnessed denial.
  auto witnessed = rec("deny", "deny", Verdict::kPass);
  witnessed.witnessed = true;
  std::vector<AttemptRecord> undeclared = {rec("control", "allow", Verdict::kSkip), witnessed};
  apply_controls(undeclared);
  EXPECT_EQ(undeclared[1].verdict, Verdict::kError);
  // Nor does a declaration excuse a control that failed in another way.
  auto overblocked = rec("control", "allow", Verdict::kOverblock);
  overblocked.refused = "declared";
  std::vector<AttemptRecord> failed = {overblocked, witnessed};
  apply_controls(failed);
  EXPECT_EQ(failed[1].verdict, Verdict::kError);
  // An escape stays an escape.
  std::vector<AttemptRecord> escaped = {refused, rec("esc", "deny", Verdict::kEscape)};
  apply_controls(escaped);
  EXPECT_EQ(escaped[1].verdict, Verdict::kEscape);
}

TEST(Refusal, WitnessIsARegularFileNeverFollowedOrShownUnlessAReport) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("breakout-witness-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};
  EXPECT_FALSE(look_for_witness(dir / "missing").present);
  {
    std::ofstream(dir / "report") << "BREAKOUT-REPORT {\"probe\":\"net-connect\",\"errname\":\"EPERM\"}\n";
    std::ofstream(dir / "secret") << "root:x:0:0\n";
  }
  const WitnessSeen ok = look_for_witness(dir / "report");
  EXPECT_TRUE(ok.present);
  EXPECT_NE(ok.evidence["report"].get<std::string>().find("EPERM"), std::string::npos);
  const WitnessSeen other = look_for_witness(dir / "secret");
  EXPECT_TRUE(other.present);
  EXPECT_FALSE(other.evidence.contains("report"));  // not a probe's line: not shown
  fs::create_symlink(dir / "report", dir / "link");
  const WitnessSeen link = look_for_witness(dir / "link");
  EXPECT_FALSE(link.present);
  EXPECT_NE(link.problem.find("not a regular file"), std::string::npos);
}

// A driver's hello `refuses` and a profile's [refuses.*] are one rule (model/declared_refusal.h).
TEST(Refusal, DriverDeclarationAppliesExactlyAsTheProfiles) {
  const driver::Hello h = driver::parse_hello(driver::parse_response(
      R"J({"id":1,"ok":true,"protocol":1,"name":"r","platform":"linux","capabilities":{},)J"
      R"J("refuses":{"af_unix":{"when":["none"],"why":"its seccomp filter fails connect(2)"}}})J"));
  auto profile = make_template_spawner(parse_profile_text(kRefusalProfile, "r"));
  for (const NetworkMode mode : {NetworkMode::kNone, NetworkMode::kFull})
    for (const Mechanism m : {Mechanism::kAfUnix, Mechanism::kIcmp})
      EXPECT_EQ(refusal_reason(h.refuses, "r", m, mode), profile->refuses(m, policy_with(mode)))
          << to_string(m) << " " << to_string(mode);
}

TEST(Refusal, NewMechanismsHaveNames) {
  for (const char* name : {"mknod", "rename_exchange", "host_proc", "icmp", "xattr", "process_vm", "keyring", "tiocsti"}) {
    ASSERT_TRUE(mechanism_from(name).has_value()) << name;
    EXPECT_EQ(std::string(to_string(*mechanism_from(name))), name);
  }
  EXPECT_NE(mechanism_names().find("host_proc"), std::string::npos);
}

// [refusal_exit]: the tool's status, its message prefix, and no probe report.
TEST(Refusal, ProfileRefusalExitIsTheToolsOwnRefusal) {
  const std::string base = std::string(kRefusalProfile).substr(0, std::string(kRefusalProfile).find("[refuses"));
  const std::string net = "[network]\nnone = []\n";
  auto s = make_template_spawner(parse_profile_text(base + "[refusal_exit]\nstatus = 1\nstderr = \"bwrap: \"\n" + net, "r"));
  LaunchResult run;
  run.started = run.exited = true;
  run.exit_code = 1;
  run.err = "bwrap: Can't chdir to /x: No such file or directory\nmore\n";
  const auto refusal = s->refusal_in(run);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->code, "refusal-exit");
  EXPECT_EQ(refusal->message, "exit 1: bwrap: Can't chdir to /x: No such file or directory");
  LaunchResult ran = run;  // the probe ran and reported: its own failure, not the tool's refusal
  ran.out = "BREAKOUT-REPORT {\"probe\":\"fs-write\",\"ok\":false}\n";
  EXPECT_FALSE(s->refusal_in(ran).has_value());
  LaunchResult other = run;
  other.exit_code = 2;
  EXPECT_FALSE(s->refusal_in(other).has_value());
  other = run;
  other.err = "sh: bwrap: not found\n";
  EXPECT_FALSE(s->refusal_in(other).has_value());
  // Without [refusal_exit] (every profile before it): never a refusal.
  EXPECT_FALSE(make_template_spawner(parse_profile_text(kRefusalProfile, "r"))->refusal_in(run).has_value());
  // Schema: a status, a non-empty prefix, nothing else.
  EXPECT_THROW(parse_profile_text(base + "[refusal_exit]\nstatus = 0\nstderr = \"x\"\n" + net, "r"), Error);
  EXPECT_THROW(parse_profile_text(base + "[refusal_exit]\nstatus = 1\nstderr = \"\"\n" + net, "r"), Error);
  EXPECT_THROW(parse_profile_text(base + "[refusal_exit]\nstatus = 1\n" + net, "r"), Error);
  EXPECT_THROW(parse_profile_text(base + "[refusal_exit]\nstatus = 1\nstderr = \"x\"\ncode = 2\n" + net, "r"), Error);
}
