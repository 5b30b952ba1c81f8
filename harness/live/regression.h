// `breakout repro --save`: a live case written as a regression attempts file for scenarios/regressions/.
//
// One [[attempt]] with the escaping target and its workspace control, the path form
// as param and the caller variables as env, written with core/toml_emit.h (never
// toml++'s formatter, fuzz/README.md). The default suite includes the directory.
// A proxy case (live_suite "proxy") is two: the spelled denial, and its control, the
// unspelled route to the allowed destination (controls_from); it goes into the
// directory's proxy/ subdirectory, which the proxy suite includes (its policy is
// network-proxy, which the default suite does not run).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/live/live_case.h"

namespace breakout {

// The attempts-file text; `origin` (artifact name) and `bytes` go into the header comment.
std::string regression_toml(const LiveCase& c, const std::string& origin, const std::vector<std::uint8_t>& bytes);

// Writes it as <dir>/<id>.toml, or <dir>/proxy/<id>.toml for a proxy case (created), parses it
// back as a check, and returns the path.
std::filesystem::path regression_dir(const LiveCase& c, const std::filesystem::path& regressions);
std::filesystem::path save_regression(const LiveCase& c, const std::filesystem::path& dir, const std::string& origin,
                                      const std::vector<std::uint8_t>& bytes);

}  // namespace breakout
