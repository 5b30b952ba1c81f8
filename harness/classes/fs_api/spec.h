// The fs_api family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from fs_api.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::rules {

// The family's own expectation rules (the shared ones: model/expectation_rules.h).

// The spawner's fs API (docs/drivers.md, capability fs) works for the sandbox on
// the host: confined to the writable roots, and never a deny_read path (deny wins).
inline Expectation expect_api_read(const std::filesystem::path& path, const ResolvedPolicy& r) {
  Expectation denied = read_at(path, r);
  if (denied.value == Expected::kDenied) return denied;
  for (const auto& root : r.writable)
    if (path_within(path, root)) return {Expected::kAllowed, "the fs API reads inside writable root " + root.filename().string()};
  return {Expected::kDenied, "the fs API is confined to the writable roots (workspace and writable_roots)"};
}

inline Expectation fs_api_write(const RuleInput& in) { return write_by(in, "through the spawner's fs API: "); }
inline Expectation fs_api_read(const RuleInput& in) {
  const std::filesystem::path path = policy_path(in);
  Expectation e = expect_api_read(path, resolve(in.policy, in.roots));
  e.why = "through the spawner's fs API: " + e.why;
  return e;
}

}  // namespace breakout::rules

namespace breakout::spec {

inline constexpr ClassSpec FsApiWrite{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .path_form = true, .decided_by = PolicyField::kWritable, .expect = rules::fs_api_write};
inline constexpr ClassSpec FsApiRead{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .path_form = true, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_api_read};
// write_file raced (classes/fs_api/fs_api.cc): judged by the write rule at the path the link names.
inline constexpr ClassSpec FsApiRace{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .decided_by = PolicyField::kWritable, .helper_probe = "race-victim",
    .expect = rules::race_write};

}  // namespace breakout::spec
