// Spelling a target in a path form (model/path_form.h) on an attempt tree: what fs attempts and the live fuzzer aim with.
//
// A form turns the target's plain absolute path into another spelling of the
// same object, planting what it needs in the attempt tree first (symlinks or a
// hard link inside the workspace, a `<workspace>-sibling` directory). The oracle
// keeps watching the host object, never the spelling.
//
//   const auto p = spell(PathForm::kSymlinkDir, tree.roots().sibling / "new-file", tree, tag, cwd, false);
//   run(std::get<SpelledPath>(p).spelled);   // <workspace>/.hopdir-<tag>/new-file
#pragma once

#include <filesystem>
#include <string>

#include "harness/attempt/skip.h"
#include "harness/paths/attempt_tree.h"
#include "harness/model/path_form.h"

namespace breakout {

struct SpelledPath {
  std::filesystem::path host;  // the host object the spelling reaches: what the oracle watches
  std::string spelled;         // what the probe or the driver is handed
  std::string token;           // canary token of `host` when the form planted a copy of a canary
};

// Plants what `form` needs and spells `target` (absolute, inside `tree`).
// `cwd`: where the caller stands (the probe's cwd; the driver's is the harness's).
// `by_driver`: the spelling goes to the spawner's fs API, which works on the host.
// A Skip (skip.h) when the form does not apply: a hard link planted by the harness
// is not something a sandboxed probe did, a dangling link needs a target that does
// not exist yet, and so on. Throws Error when planting fails.
OrSkip<SpelledPath> spell(PathForm form, const std::filesystem::path& target, const AttemptTree& tree,
                          const std::string& tag, const std::filesystem::path& cwd, bool by_driver);

}  // namespace breakout
