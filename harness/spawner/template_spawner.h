// Template profiles: map a policy onto a CLI sandbox's command line (spawners/*.toml, docs/spawners.md).
//
// No shell is involved anywhere: every template element becomes exactly one argv
// element, and substituted values (paths with spaces, quotes or leading dashes)
// are never re-expanded.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "harness/spawner/spawner.h"

namespace breakout {

struct Profile {
  std::string name, description, notes;
  std::vector<std::string> requires_tools;   // must be on PATH
  std::vector<std::string> version_argv;     // prints the version on its first line
  std::vector<std::string> command;          // the template
  std::vector<std::string> writable_root;    // per writable root, {path}
  std::vector<std::string> deny_read_dir;    // per denied directory, {path}
  std::vector<std::string> deny_read_file;   // per denied file, {path}
  std::vector<std::string> env_set;          // per variable the child must see, {name} {value}
  std::vector<std::string> env_unset;        // per caller variable the child must not see, {name}
  // network mode name -> flags, or -> unsupported reason
  std::map<std::string, std::vector<std::string>> network;
  std::map<std::string, std::string> network_unsupported;
};

Profile parse_profile_text(const std::string& text, const std::string& origin);
// The same for a document already parsed (schema::parse), so a caller that first looks at
// its "kind" (make_spawner, fuzz/profile_fuzzer.cc) does not parse the text twice.
Profile parse_profile(const toml::table& root, const std::string& origin);
Profile load_profile_file(const std::filesystem::path& file);

// Pure expansion (unit-tested): list tokens "{argv...}", "{network...}",
// "{writable...}", "{deny_read...}", "{env_set...}", "{env_unset...}" splice;
// scalars "{cwd}", "{workspace}", "{home}", "{tree}" substitute inside a token.
std::vector<std::string> expand_profile(const Profile& profile, const SpawnRequest& request);

std::unique_ptr<Spawner> make_template_spawner(Profile profile);

}  // namespace breakout
