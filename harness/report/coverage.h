// The gate's lost-coverage rules (docs/results.md, "Lost coverage"): a comparison that judged less
// than its base, or judged something else, must never read as "nothing new".
//
//   const AllowedChanges allow = parse_allowed_changes({"version"});   // --allow-change version
//   for (const auto& c : identity_changes(identity_of(base.info), identity_of(now.info), "BASE"))
//     (allow.count(c.field) ? notes : reasons).push_back(c.sentence);
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/attempt/record.h"
#include "harness/report/results.h"

namespace breakout {

// What a run was a run of: two runs (or a baseline and a run) are comparable only when these match.
struct RunIdentity {
  std::string spawner, version, suite, platform;
  std::vector<std::string> policies;  // compared as a set
};
RunIdentity identity_of(const RunInfo& info);

// `--allow-change spawner,version,suite,policies,platform`: the identity fields that may differ.
using AllowedChanges = std::set<std::string>;
// Throws Error("bad-allow-change") on a name outside the five.
AllowedChanges parse_allowed_changes(const std::vector<std::string>& names);

struct IdentityChange {
  std::string field;     // its --allow-change name
  std::string sentence;  // "the spawner differs: 'bwrap' in BASE, 'none' in NEW"
};
// Every identity field that differs; `base_word` names the base ("BASE", "the baseline"). A base
// that does not record everything (a baseline written before the check has only suite and spawner
// name) is checked on those two, where not empty. A version is compared only for the same spawner.
std::vector<IdentityChange> identity_changes(const RunIdentity& base, const RunIdentity& now,
                                             const std::string& base_word, bool base_records_everything = true);

// A verdict that judged the sandbox: pass, escape, overblock, broken. skip and error judged nothing.
bool judged(const std::string& verdict);

// Why nothing was judged in NEW (zero executions, or none pass/escape/overblock/broken), if so.
std::optional<std::string> nothing_judged_reason(const std::vector<AttemptRecord>& records);

}  // namespace breakout
