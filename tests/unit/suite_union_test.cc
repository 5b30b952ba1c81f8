// `--suite all` (scenarios/suites/all.toml): a union of suites, each attempt under the
// policies of every member that includes it, and nothing run under a policy it lacks.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "harness/model/scenario.h"
#include "harness/run/plan.h"
#include "harness/spawner/spawner.h"

namespace fs = std::filesystem;
using namespace breakout;

namespace {

const fs::path kScenarioDir = fs::path(BREAKOUT_SOURCE_DIR) / "scenarios";

const Attempt* find(const Suite& s, const std::string& id) {
  for (const auto& a : s.attempts)
    if (a.id == id) return &a;
  return nullptr;
}

std::set<std::string> set_of(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST(SuiteUnion, AllHoldsEveryAttemptOfEveryLinuxMember) {
  const Suite all = load_suite("all", kScenarioDir, "linux");
  for (const char* member : {"default", "network", "net-families", "host-ipc", "linux-catalog", "protected-paths",
                             "proxy", "deny-read-race"}) {
    const Suite m = load_suite(member, kScenarioDir, "linux");
    for (const auto& a : m.attempts) {
      const Attempt* in_all = find(all, a.id);
      ASSERT_NE(in_all, nullptr) << a.id << " of " << member;
      for (const auto& p : m.policies)
        EXPECT_TRUE(std::count(in_all->policies.begin(), in_all->policies.end(), p.name)) << a.id << " " << p.name;
    }
  }
  EXPECT_EQ(find(all, "live.probe-write.absolute"), nullptr);
  EXPECT_EQ(find(all, "win.registry.run-key"), nullptr);  // a windows-only member's attempt
}

TEST(SuiteUnion, AnAttemptTwoMembersShareRunsUnderBothMembersPolicies) {
  const Suite all = load_suite("all", kScenarioDir, "linux");
  // network.toml is in default (workspace-write, network-full) and network (+ network-loopback).
  const Attempt* tcp = find(all, "net.tcp");
  ASSERT_NE(tcp, nullptr);
  EXPECT_EQ(set_of(tcp->policies), (std::set<std::string>{"workspace-write", "network-full", "network-loopback"}));
  // Only deny-read-race includes its attempts: its policy alone.
  const Attempt* race = find(all, "fs.race.rename-ancestor");
  ASSERT_NE(race, nullptr);
  EXPECT_EQ(set_of(race->policies), (std::set<std::string>{"workspace-deny-read"}));
}

TEST(SuiteUnion, PlanRunsEachAttemptOnlyUnderItsOwnPolicies) {
  const Suite all = load_suite("all", kScenarioDir, "linux");
  const auto none = make_none_spawner();
  std::set<std::string> ids;
  for (const auto& ex : plan_executions(all, *none, nullptr, {.only = "", .platform = "linux"})) {
    EXPECT_TRUE(runs_under(*ex.attempt, *ex.policy)) << ex.id;
    EXPECT_TRUE(ids.insert(ex.id).second) << "twice: " << ex.id;
  }
  EXPECT_TRUE(ids.count("net.tcp@network-loopback[net:tcp4-loopback]"));
  EXPECT_FALSE(ids.count("fs.race.rename-ancestor@workspace-write[fs:workspace/vault/open/key]"));
  // The sum of the members' plans, less what two members share.
  std::size_t members = 0;
  for (const char* member : {"default", "network", "net-families", "host-ipc", "linux-catalog", "protected-paths",
                             "proxy", "deny-read-race"})
    members += plan_executions(load_suite(member, kScenarioDir, "linux"), *none, nullptr, {.only = "", .platform = "linux"}).size();
  EXPECT_LT(ids.size(), members);
  EXPECT_GT(ids.size(), plan_executions(load_suite("default", kScenarioDir, "linux"), *none, nullptr,
                                        {.only = "", .platform = "linux"}).size());
}

TEST(SuiteUnion, OnWindowsAllIsTheWindowsSuites) {
  const Suite all = load_suite("all", kScenarioDir, "windows");
  const Suite win = load_suite("windows", kScenarioDir, "windows");
  const Suite prot = load_suite("windows-protected", kScenarioDir, "windows");
  EXPECT_EQ(all.attempts.size(), win.attempts.size() + prot.attempts.size());
  EXPECT_EQ(find(all, "ipc.unix-outside"), nullptr);
}
