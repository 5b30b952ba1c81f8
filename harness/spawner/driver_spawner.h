// Driver spawners: a sandbox that is a library with sessions, reached through driver protocol v1 (docs/drivers.md).
//
// `breakout run --driver 'python3 my_driver.py'`, or a profile with kind = "driver".
// The spawner says hello once when it is made (capabilities decide what is
// skipped, a failed handshake makes the run fail loudly); then every attempt
// starts its own driver process inside the attempt's containment, with the
// caller's environment (canaries included), boots a session with the policy on
// the attempt's tree, execs, and shuts down. One driver process per attempt:
// whatever a hostile or broken driver does touches one attempt only.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "harness/spawner/spawner.h"

namespace breakout {

struct DriverSettings {
  std::string name;         // empty: the name the driver gives in hello
  std::string description;  // empty: made from hello
  std::vector<std::string> argv;
  // Where argv[0] is looked up (a bare name): the PATH breakout was started with, the user's, not the
  // fixed PATH of the caller environment the driver then runs in. Unset: own_search_path() (os.h).
  std::optional<std::string> lookup_path;
  std::chrono::milliseconds hello_timeout{10000};
  std::chrono::milliseconds boot_timeout{30000};
  std::chrono::milliseconds exec_grace{10000};   // on top of the exec's own timeout
  std::chrono::milliseconds shutdown_timeout{30000};
  std::chrono::milliseconds close_grace{2000};   // after stdin closed, before SIGKILL
};

// Splits a --driver command line into argv: whitespace separates, '...' and
// "..." quote, backslash escapes outside single quotes. No expansion of any kind.
std::vector<std::string> split_command_line(const std::string& text);

// Why the driver's program (argv[0]) cannot be started: not found on `search_path` (the message names
// that PATH), or not an executable file; nullopt when it resolves. Checked before the first attempt.
std::optional<std::string> driver_program_missing(const std::vector<std::string>& argv, const std::string& search_path);

// Profile tables with kind = "driver" (schema: docs/drivers.md); "{profile_dir}"
// in the command expands to the profile's directory.
DriverSettings parse_driver_profile(const toml::table& root, const std::string& origin,
                                    const std::filesystem::path& profile_dir);

// Says hello right away; a driver that does not answer is `unavailable_reason()`.
std::unique_ptr<Spawner> make_driver_spawner(DriverSettings settings);

}  // namespace breakout
