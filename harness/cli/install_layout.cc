// Locates breakout's data and probes relative to the running binary (install_layout.h).
#include "harness/cli/install_layout.h"

#include <system_error>

namespace breakout {
namespace fs = std::filesystem;

namespace {

bool has_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool has_probes(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "breakout-probe-noop", ec) || fs::exists(dir / "breakout-probe-noop.exe", ec);
}

}  // namespace

DataLayout find_data_layout(const fs::path& exe_dir, const std::optional<std::string>& env_data,
                            const fs::path& build_data) {
  const fs::path prefix = exe_dir.parent_path();
  const fs::path installed_data = prefix / "share" / "breakout";
  const fs::path installed_probes = prefix / "libexec" / "breakout";
  DataLayout layout;
  if (env_data && !env_data->empty()) {
    layout = {fs::path(*env_data), exe_dir, "BREAKOUT_DATA"};
  } else if (has_dir(installed_data / "scenarios")) {
    layout = {installed_data, exe_dir, "installed"};
  } else {
    layout = {build_data, exe_dir, "build tree"};
  }
  if (!has_probes(exe_dir) && has_probes(installed_probes)) layout.probes = installed_probes;
  return layout;
}

}  // namespace breakout
