// Fuzzes spawner profiles (user input): template profiles parse and expand without stray placeholders; driver profiles stay in bounds.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "harness/core/toml_schema.h"
#include "harness/spawner/config_literal.h"
#include "harness/spawner/driver_spawner.h"
#include "harness/spawner/template_spawner.h"

using namespace breakout;

namespace {

// One fixed request; its values hold no braces, so any placeholder left after expansion came from the profile.
const SpawnRequest& request() {
  static const Policy policy = [] {
    Policy p;
    p.name = p.description = "fuzz";
    p.network = NetworkMode::kNone;
    p.env.inherit = {"HOME"};
    p.env.pinned = {{"PIN", "pinned"}};
    return p;
  }();
  static const SpawnRequest r = [] {
    SpawnRequest s;
    s.policy = &policy;
    s.roots = {"/t", "/t/workspace", "/t/sibling", "/t/home", "/t/extra"};
    s.resolved.writable = {"/t/workspace", "/t/extra"};  // deny_read stays empty: expansion would stat it
    // "{cwd}" in the probe's own argv must reach the sandbox verbatim, never substituted.
    s.probe_argv = {"/probes/breakout-probe-fs", "{cwd}", "--"};
    s.cwd = "/t/workspace";
    s.caller_env = {{"HOME", "/t/home"}, {"SECRET", "canary"}};
    return s;
  }();
  return r;
}

// No placeholder a template may use is left in what reaches the tool (its argv, `after`).
void check_expanded(const std::vector<std::string>& argv, std::vector<std::string>::const_iterator probe_at,
                    std::size_t probe_size) {
  for (auto it = argv.begin(); it != argv.end(); ++it) {
    if (it >= probe_at && it < probe_at + static_cast<std::ptrdiff_t>(probe_size)) continue;
    for (const char* ph : {"{cwd}", "{workspace}", "{home}", "{tree}", "{path}", "{name}", "{value}", "{exec_id}"})
      FUZZ_CHECK_MSG(it->find(ph) == std::string::npos, "placeholder left unexpanded: " + *it);
  }
}

void check_template(const Profile& p) {
  const SpawnRequest& r = request();
  if (!p.network.count(to_string(r.policy->network))) return;  // cannot_express() skips such attempts
  const std::vector<std::string> argv = expand_profile(p, r, "id");
  const auto at = std::search(argv.begin(), argv.end(), r.probe_argv.begin(), r.probe_argv.end());
  const auto file = expand_config_file(p, r, "id");
  // The probe exactly once: on the command line, or as one array literal in the config file.
  const std::string in_file = file ? literal_array(p.config_file->format, r.probe_argv) : std::string();
  const std::size_t file_hits = file && file->second.find(in_file) != std::string::npos ? 1 : 0;
  FUZZ_CHECK_MSG((at != argv.end()) + file_hits == 1, "the probe argv is not in the expansion exactly once");
  check_expanded(argv, at, r.probe_argv.size());
  const std::vector<std::string> after = expand_after(p, r, "id");
  check_expanded(after, after.end(), 0);
}

void check_driver(const DriverSettings& s) {
  FUZZ_CHECK(!s.name.empty() && !s.argv.empty());
  for (const auto& a : s.argv) FUZZ_CHECK_MSG(a.find("{profile_dir}") == std::string::npos, a);
  for (const auto ms : {s.hello_timeout, s.boot_timeout, s.exec_grace, s.shutdown_timeout, s.close_grace})
    FUZZ_CHECK(ms.count() >= 1 && ms.count() <= 3600000);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // The same dispatch as make_spawner: kind = "driver" goes to the driver schema.
    const toml::table root = schema::parse(text, "fuzz.toml");
    if (root["kind"].value<std::string>() == std::optional<std::string>("driver"))
      check_driver(parse_driver_profile(root, "fuzz.toml", "/profiles"));
    else
      check_template(parse_profile(root, "fuzz.toml"));  // parse_profile_text would parse the text again
  } catch (const Error& e) {
    FUZZ_EXPECT_CODED(e);
  }
  return 0;
}
