// Template spawners: map a policy onto a CLI sandbox's command line per spawn, from a profile (template_profile.h).
//
// No shell is involved anywhere: every template element becomes exactly one argv
// element, and substituted values (paths with spaces, quotes or leading dashes)
// are never re-expanded.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/spawner/spawner.h"
#include "harness/spawner/template_profile.h"

namespace breakout {

// Pure expansion (unit-tested): list tokens "{argv...}", "{network...}",
// "{writable...}", "{deny_read...}", "{env_set...}", "{env_unset...}" splice;
// scalars "{cwd}", "{workspace}", "{home}", "{tree}", "{profile_dir}", "{spawner_dir}",
// "{config}", "{exec_id}" substitute inside a token; "{x:json}" / "{x:toml}" substitute a whole
// literal (a scalar as a string; writable, deny_read, deny_write, argv, env, env_names, env_unset,
// env_pinned_names as arrays, "{a+b:json}" as one array of both; env_set, env_pinned as tables), so
// a list joins into one element. `exec_id` names this one spawn (an OCI container id): the
// command, the config file and `after` of one spawn must be expanded with the same one.
std::vector<std::string> expand_profile(const Profile& profile, const SpawnRequest& request,
                                        const std::string& exec_id = "0");
// The [config_file] for this spawn: {path, text}; nullopt when the profile has none.
std::optional<std::pair<std::string, std::string>> expand_config_file(const Profile& profile,
                                                                      const SpawnRequest& request,
                                                                      const std::string& exec_id = "0");
// The profile's `after` command for this spawn (empty when it has none).
std::vector<std::string> expand_after(const Profile& profile, const SpawnRequest& request,
                                      const std::string& exec_id = "0");
// The spawner's own directory for this attempt: beside the attempt tree, so nothing the tool
// keeps there (its config, Codex's CODEX_HOME) is judged as a change by the sandboxed probe.
std::filesystem::path spawner_dir_of(const TreeRoots& roots);

std::unique_ptr<Spawner> make_template_spawner(Profile profile);

}  // namespace breakout
