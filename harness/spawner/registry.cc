// Spawners by name: `none`, or a profile under spawners/ (a template profile, or kind = "driver").
#include <algorithm>

#include "harness/core/error.h"
#include "harness/core/toml_schema.h"
#include "harness/spawner/driver_spawner.h"
#include "harness/spawner/spawner.h"
#include "harness/spawner/template_spawner.h"

namespace breakout {

namespace fs = std::filesystem;

std::unique_ptr<Spawner> make_spawner(const std::string& name_or_profile, const fs::path& spawners_dir) {
  if (name_or_profile == "none") return make_none_spawner();
  fs::path file = name_or_profile;
  if (file.extension() != ".toml") file = spawners_dir / (name_or_profile + ".toml");
  if (!fs::exists(file))
    throw Error("no-spawner", "no spawner '" + name_or_profile + "' (looked for " + file.string() + ")");
  const std::string text = schema::read_file(file.string());
  const toml::table root = schema::parse(text, file.string());
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
