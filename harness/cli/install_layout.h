// Where breakout finds its data (scenarios/, spawners/, drivers/) and its probes, in a build tree
// and in an installed prefix (docs/install.md).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace breakout {

struct DataLayout {
  std::filesystem::path data;    // holds scenarios/ and spawners/ (and drivers/)
  std::filesystem::path probes;  // holds breakout-probe-*
  std::string origin;            // "BREAKOUT_DATA", "installed" or "build tree": shown by `list`
};

// The first of, for the binary in `exe_dir`:
//   1. `env_data` (the BREAKOUT_DATA environment variable), when set and not empty;
//   2. the installed layout: <exe_dir>/../share/breakout, probes in <exe_dir>/../libexec/breakout;
//   3. the build tree: `build_data` (the source directory compiled in), probes beside the binary.
// Probes sit beside the binary whenever breakout-probe-noop is there (build tree, Windows zip).
DataLayout find_data_layout(const std::filesystem::path& exe_dir, const std::optional<std::string>& env_data,
                            const std::filesystem::path& build_data);

}  // namespace breakout
