// Removing a directory tree by *at() calls, so its depth is not bounded by PATH_MAX (the path model's deep chains).
#pragma once

namespace breakout::paths {

// Removes `name` under `dirfd` recursively without following symlinks; what cannot be removed stays.
void remove_at(int dirfd, const char* name);

}  // namespace breakout::paths
