// Stub programs first on the exec's PATH (path_stubs.h).
#include "harness/classes/handover/path_stubs.h"

#include <fstream>

#include "harness/core/error.h"

namespace breakout::oracles {

namespace fs = std::filesystem;

void write_stub(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  check(static_cast<bool>(out), "stub", "cannot write " + path.string());
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
}

void put_first_on_path(Scene& s, const fs::path& dir) {
  const auto it = s.request.caller_env.find("PATH");
  const std::string rest = it == s.request.caller_env.end() ? "/usr/local/bin:/usr/bin:/bin" : it->second;
  s.request.env_overrides.emplace_back("PATH", dir.string() + ":" + rest);
}

}  // namespace breakout::oracles
