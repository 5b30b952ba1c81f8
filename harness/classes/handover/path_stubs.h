// Stub programs first on the exec's PATH: what path-hijack and fail-open plant (path_stubs.cc).
#pragma once

#include <filesystem>
#include <string>

#include "harness/attempt/scene.h"

namespace breakout::oracles {

// Writes `text` at `path` as an executable script (rwxr-xr-x).
void write_stub(const std::filesystem::path& path, const std::string& text);

// Puts `dir` first on the exec's PATH (the caller's, or a minimal one): an env override, so
// call it after compose() (Oracle::before_exec). The harness still finds the spawner's own
// command on the caller's PATH (LaunchSpec::lookup_path).
void put_first_on_path(Scene& s, const std::filesystem::path& dir);

}  // namespace breakout::oracles
