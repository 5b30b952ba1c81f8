// One execution through the real run_attempt with the fake spawner: tree, io, oracle steps, judge().
//
// The fixture owns what a run shares (work root, loopback listeners, RunContext); run() builds
// the Execution as the planner does (id, group, the expectation computed from the policy) and
// hands it to run_attempt, so the verdict is the real judge's. Policies are the shipped ones
// (scenarios/policies/*.toml).
//
//   JudgeRun j;
//   j.spawner.on_exec = ...;
//   AttemptRecord r = j.run(attempt("fs-write", {"--path", "{target}"}), j.policy("workspace-write"), "fs:sibling/x");
//   EXPECT_EQ(r.verdict, Verdict::kEscape) << r.reason;
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/attempt/record.h"
#include "harness/attempt/run_context.h"
#include "harness/attempt/work_root.h"
#include "harness/model/scenario.h"
#include "harness/host/net_listeners.h"
#include "tests/unit/judges/support/fake_spawner.h"
#include "tests/unit/judges/support/host_effects.h"

namespace breakout::judges {

// An attempt of class `klass` ("fs-write") with these probe args (placeholders as in scenarios).
Attempt attempt(const std::string& klass, std::vector<std::string> args = {}, std::string param = "");

// Fake sandboxes the judge tests of several families share.
// Writes `text` where the probe's --path says (the fs-write probe's create).
ExecScript writes_path(std::string text = "written by the fake sandbox\n");
// Sends the probe's nonce to its --target and reports it sent (the net probes' connect).
ExecScript sends_nonce();

class JudgeRun {
 public:
  JudgeRun();
  // A shipped policy, by name (scenarios/policies/<name>.toml).
  const Policy& policy(const std::string& name);
  // Runs one execution of `a` under `p` aimed at `target` ("" for classes without targets).
  AttemptRecord run(const Attempt& a, const Policy& p, const std::string& target = "");
  // That execution as the planner makes it, for a plan handed to run_all.
  Execution execution(const Attempt& a, const Policy& p, const std::string& target = "");
  // The expectation the planner gives that execution.
  Expected expected(const Attempt& a, const Policy& p, const std::string& target = "") const;
  // The run's loopback listeners (started on first use; ctx.listeners points at them).
  NonceListeners& listeners();

  FakeSpawner spawner;
  RunContext ctx;

 private:
  WorkRoot work_;
  std::unique_ptr<NonceListeners> listeners_;
  std::map<std::string, Policy> policies_;
  int next_index_ = 0;
};

// The verdict, with the record's reason and evidence when it is not the one expected.
#define EXPECT_VERDICT(rec, v) \
  EXPECT_EQ((rec).verdict, (v)) << to_string((rec).verdict) << ": " << (rec).reason << "\n" << (rec).evidence.dump(1)

}  // namespace breakout::judges
