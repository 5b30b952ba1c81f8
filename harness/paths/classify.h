// Which host object a resolved path names, and what the policy expects of it: the harness's path classifier.
//
// Builds on the expectation model (model/expectation.h): the resolved path goes
// through the same resolve()/path_within() rules as a scenario's "fs:" target,
// so a form that reaches the workspace by a detour is judged like the plain one.
// The object's identity (a base-tree label, found by inode) is kept apart from
// its path: a hard link in the workspace to ~/.ssh/id_ed25519 lies inside the
// workspace and still IS the deny-read object.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/expectation.h"
#include "harness/model/policy.h"

namespace breakout::paths {

enum class Region { kDenyRead, kWorkspace, kWritableRoot, kSibling, kHome, kTree, kOutside };
const char* to_string(Region r);

struct Classified {
  Region region{};          // of the path; deny_read first (deny wins), then the writable roots
  std::string object;       // label of the base-tree object named ("" for anything else)
  bool deny_read_object = false;  // the object's own path lies under a deny_read entry
  Expected write{}, read{};       // expect() for fs-write / fs-read of the resolved path

  bool operator==(const Classified&) const = default;
};

// `resolved` is absolute and free of symlinks; `object` a base-tree label or "".
Classified classify(const std::filesystem::path& resolved, const std::string& object, const Policy& policy,
                    const TreeRoots& roots);
// The same with `policy` already resolved on `roots` (resolve(policy, roots)): callers that
// classify many paths under one policy resolve it once (fuzz/path_model_fuzzer.cc).
Classified classify(const std::filesystem::path& resolved, const std::string& object, const ResolvedPolicy& r,
                    const TreeRoots& roots);

}  // namespace breakout::paths
