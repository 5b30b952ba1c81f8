// One execution of one attempt (attempt × policy × target) and what the harness concluded.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "harness/model/expectation.h"
#include "harness/model/scenario.h"
#include "harness/model/target.h"
#include "harness/model/verdict.h"

namespace breakout {

// What to run: built by the planner before anything executes.
struct Execution {
  int index = 0;
  const Attempt* attempt = nullptr;
  const Policy* policy = nullptr;
  std::optional<Target> target;
  std::string id;          // "<attempt>@<policy>[<target>]", stable across runs
  std::string group;       // "<attempt>@<policy>": executions that control each other
  Expectation expectation;
  std::string skip_reason; // set by the planner when it cannot run here
  // An execution that needs a mechanism the spawner declares it refuses under this policy
  // (model/declared_refusal.h): the sentence why. A control that then does not happen, an
  // execution the host could not see at all, or one the spawner refused, is that declared
  // limitation (skip), not an overblock or an error (run_attempt.cc).
  std::string refused;
  // A denial whose group has such a control: the probe leaves a witness in the workspace, and
  // its absence fails the denial (attempt/witness.h), since no control says the probe worked.
  bool witness = false;
};

// What happened: one record in results.json and one testcase in junit.xml.
struct AttemptRecord {
  std::string id, group, attempt_id, title, description, reference, klass, policy, target;
  std::string role;        // "deny", "allow" (a control) or "contract"
  // Where the attempt is written: its file as a URI reference (relative to the run's directory or to
  // breakout's data directory, report/sarif.h source_uri) and the line of its [[attempt]] header.
  std::string source_file;
  int source_line = 0;
  std::string expected, expected_why, probe;
  std::vector<std::string> probe_argv, spawner_argv;
  Verdict verdict = Verdict::kError;
  std::string reason;
  nlohmann::json evidence = nlohmann::json::object();      // outside evidence (decides)
  nlohmann::json probe_report = nlohmann::json();          // the probe's own word (displayed only)
  nlohmann::json exit = nlohmann::json::object();          // how the spawner process ended
  std::string stdout_excerpt, stderr_excerpt;              // bounded, as sent (hostile)
  std::vector<std::string> controls;                       // ids of the controls of a deny
  std::string refused;     // skipped as the declared refusal (Execution::refused)
  bool witnessed = false;  // a deny whose in-run witness held (Execution::witness)
  double duration_ms = 0;
};

}  // namespace breakout
