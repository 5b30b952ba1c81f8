// The probes the plan needs, checked before the first attempt (a wrong --probes is exit 2, not N errors).
#include "harness/run/preflight.h"

#include "harness/core/error.h"
#include "harness/model/class_spec.h"
#include "harness/model/scenario.h"
#include "harness/platform/os.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {
constexpr std::size_t kMaxNamed = 12;  // a message, not a listing: the rest is counted
}  // namespace

void check_probes_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error("bad-probes", "--probes " + dir.string() + ": not a directory (" +
                                  (fs::exists(dir, ec) ? "it is a file" : "it does not exist") +
                                  "); it must hold the breakout-probe-* binaries (default: breakout's own directory)");
}

std::set<std::string> probes_needed(const std::vector<Execution>& plan) {
  std::set<std::string> out;
  for (const auto& ex : plan) {
    if (!ex.skip_reason.empty() || !ex.attempt) continue;
    if (ex.attempt->probe != kDriverFsProbe) out.insert(ex.attempt->probe);
    // The harness's own helpers: a class's helper probe (ClassSpec::helper_probe: spawner-follow's
    // no-op execs, fs-api-race's calibration victim); host/*/host_objects.cc starts the victim
    // outside every sandbox.
    if (const char* helper = class_spec(ex.attempt->klass).helper_probe) out.insert(helper);
    if (ex.target && ex.target->kind == TargetKind::kHostObject && ex.target->value == "victim") out.insert("victim");
  }
  return out;
}

std::string missing_probes(const fs::path& dir, const std::set<std::string>& needed) {
  std::string out;
  std::size_t n = 0;
  for (const auto& name : needed) {
    const fs::path file = dir / ("breakout-probe-" + name);
    if (find_executable(file.string(), "")) continue;
    if (++n <= kMaxNamed) {
      std::error_code ec;
      out += (out.empty() ? "" : "; ") + file.filename().string() +
             (fs::exists(file, ec) ? " is not an executable file" : " is missing");
    }
  }
  if (n > kMaxNamed) out += "; and " + std::to_string(n - kMaxNamed) + " more";
  return out;
}

void check_probes(const fs::path& dir, const std::vector<Execution>& plan) {
  const std::string missing = missing_probes(dir, probes_needed(plan));
  if (!missing.empty())
    throw Error("bad-probes", "--probes " + dir.string() + ": " + missing +
                                  " (the planned executions need them; build them or point --probes at the build's bin/)");
}

}  // namespace breakout
