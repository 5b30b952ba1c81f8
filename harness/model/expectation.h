// The expected outcome of every attempt, computed from the policy — never written by hand.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/policy.h"
#include "harness/model/scenario.h"
#include "harness/model/target.h"

namespace breakout {

// The inherited variable a pin:control override sets (class env-pinned).
inline constexpr const char* kOverrideControlVar = "BREAKOUT_INHERITED";

enum class Expected {
  kAllowed,  // the effect must happen (a control, or an allowed target)
  kDenied,   // the effect must not happen
  kHolds,    // a contract that must hold (exit code, cwd, output, timeouts)
  kObserved, // nothing to allow or deny: recorded for people (recon under a policy it cannot check); skip, never pass
};
const char* to_string(Expected e);
// The execution's role in results.json: "deny", "allow" (a control), "observe" or "contract".
const char* role_of(Expected e);

// Which fs rule a path-target class is judged by (its table entry's `fs`; expect_fs, paths::classify).
enum class FsRule { kNone, kWrite, kRead };

struct Expectation {
  Expected value{};
  std::string why;  // one sentence citing the policy rule
};

// `target` is null for classes without targets. `roots` may be any tree: the
// computation is lexical on policy paths (so it also runs at suite-load time).
Expectation expect(AttemptClass klass, const Target* target, const Policy& policy,
                   const TreeRoots& roots);

// What expect() gives an "fs:" target judged by fs rule `rule` (fs-write, fs-read and their
// real-home forms) at absolute, lexically normal `path`, with the policy already resolved: the
// path classifier calls it per resolved path instead of resolving the policy again.
// Throws Error("bad-class", "...") for FsRule::kNone.
Expectation expect_fs(FsRule rule, const std::filesystem::path& path, const ResolvedPolicy& r);
// expect_fs(...).value without building the sentence: paths::classify asks it for every
// path it classifies (policy_model_fuzzer, path_model_fuzzer) and never reads the why.
Expected expected_fs(FsRule rule, const std::filesystem::path& path, const ResolvedPolicy& r);

// Placeholder roots used when no attempt tree exists yet (schema checks, `list`).
TreeRoots placeholder_roots();

}  // namespace breakout
