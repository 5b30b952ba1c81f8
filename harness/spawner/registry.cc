// Spawners by name: `none`, or a profile under spawners/ (a template profile, or kind = "driver").
#include <algorithm>
#include <cctype>
#include <utility>

#include "harness/core/error.h"
#include "harness/core/suggest.h"
#include "harness/core/toml_schema.h"
#include "harness/spawner/driver_spawner.h"
#include "harness/spawner/spawner.h"
#include "harness/spawner/template_spawner.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

// "srt@0.0.82" -> ("srt", "0.0.82"); no '@': the pinned install. Versions are npm's characters.
std::pair<std::string, std::string> split_release(const std::string& arg) {
  const std::size_t at = arg.rfind('@');
  if (at == std::string::npos || at == 0) return {arg, ""};
  const std::string version = arg.substr(at + 1);
  if (version.empty() || version.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz"
                                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ.+-_") != std::string::npos)
    throw Error("bad-release", "--spawner " + arg + ": a release is NAME@VERSION with VERSION like 0.0.82");
  return {arg.substr(0, at), version};
}

// `version` as a whole word of the tool's output ("codex-cli 0.169.1" names 0.169.1, not 0.169).
bool names_version(const std::string& reported, const std::string& version) {
  const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'; };
  for (std::size_t at = reported.find(version); at != std::string::npos; at = reported.find(version, at + 1)) {
    const std::size_t end = at + version.size();
    if ((at == 0 || !part(reported[at - 1])) && (end == reported.size() || !part(reported[end]))) return true;
  }
  return false;
}

// --spawner NAME@VERSION runs the profile with {tools} = spawners/releases/NAME-VERSION, a
// published release installed beside the pin (docs/spawners.md, "Release over release"). It is
// refused where it would silently run something else.
std::unique_ptr<Spawner> make_release(const toml::table& root, const fs::path& file, const std::string& arg,
                                      const std::string& version) {
  const fs::path dir = fs::absolute(file).parent_path();
  if (root["kind"].value<std::string>() == std::optional<std::string>("driver"))
    throw Error("release-ignored", "--spawner " + arg + ": a driver profile has no {tools} to choose a release for");
  const fs::path tools = dir / "releases" / (file.stem().string() + "-" + version);
  Profile profile = parse_profile(root, file.string(), dir, tools);
  if (!profile.uses_tools)
    throw Error("release-ignored", "--spawner " + arg + ": " + file.string() +
                                       " does not name its tool through {tools}, so @" + version + " would change nothing");
  if (!fs::is_directory(tools))
    throw Error("no-release", "--spawner " + arg + ": " + tools.string() +
                                  " is missing (a release needs its package.json and package-lock.json there, then `npm ci "
                                  "--prefix " + tools.string() + "`; ci/setup.sh installs the committed ones)");
  auto spawner = make_template_spawner(std::move(profile));
  const std::string reported = spawner->version();
  if (!names_version(reported, version))
    throw Error("release-mismatch", "--spawner " + arg + ": the tool in " + tools.string() + " reports version '" +
                                        reported + "', not " + version + " (reinstall it with npm ci)");
  return spawner;
}

}  // namespace

std::unique_ptr<Spawner> make_spawner(const std::string& name_or_profile, const fs::path& spawners_dir) {
  if (name_or_profile == "none") return make_none_spawner();
  const auto [name, version] = split_release(name_or_profile);
  fs::path file = name;
  if (file.extension() != ".toml") file = spawners_dir / (name + ".toml");
  if (!fs::exists(file)) {
    // A name (not a path) gets the nearest profile name: `--spawner bwarp` is a typo of bwrap.
    const std::string hint = fs::path(name).extension() == ".toml" ? "" : "; " + did_you_mean(name, list_spawners(spawners_dir));
    throw Error("no-spawner", "no spawner '" + name + "' (looked for " + file.string() + ")" + hint);
  }
  const std::string text = schema::read_file(file.string());
  const toml::table root = schema::parse(text, file.string());
  if (!version.empty()) return make_release(root, file, name_or_profile, version);
  if (root["kind"].value<std::string>() == std::optional<std::string>("driver"))
    return make_driver_spawner(parse_driver_profile(root, file.string(), fs::absolute(file).parent_path()));
  return make_template_spawner(parse_profile(root, file.string(), fs::absolute(file).parent_path()));
}

std::vector<std::string> list_spawners(const fs::path& spawners_dir) {
  std::vector<std::string> names = {"none"};
  std::error_code ec;
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(spawners_dir, ec))
    if (e.path().extension() == ".toml") found.push_back(e.path().stem().string());
  std::sort(found.begin(), found.end());
  names.insert(names.end(), found.begin(), found.end());
  return names;
}

}  // namespace breakout
