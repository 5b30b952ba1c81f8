// The fs_api family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from fs_api.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec FsApiWrite{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .path_form = true, .decided_by = PolicyField::kWritable, .expect = rules::fs_api_write};
inline constexpr ClassSpec FsApiRead{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .path_form = true, .decided_by = PolicyField::kDenyRead, .expect = rules::fs_api_read};
// write_file raced (classes/fs_api/fs_api.cc): judged by the write rule at the path the link names.
inline constexpr ClassSpec FsApiRace{.probe = kDriverFsProbe, .targets = true, .fs_api = true,
    .decided_by = PolicyField::kWritable, .expect = rules::race_write};

}  // namespace breakout::spec
