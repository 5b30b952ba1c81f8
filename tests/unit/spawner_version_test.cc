// A profile's `version` command runs with a throw-away HOME of its own, never the caller's (or, with no HOME
// at all, the passwd entry's): codex creates ~/.codex/tmp/arg0-linux even for --version.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "harness/core/nonce.h"
#include "harness/spawner/template_spawner.h"

namespace breakout {
namespace {

namespace fs = std::filesystem;

TEST(SpawnerVersion, RunsWithAThrowAwayHomeThatIsRemovedAfterwards) {
  const fs::path ours = fs::temp_directory_path() / ("breakout-version-test-" + random_hex(4));
  fs::create_directories(ours);
  struct RemoveAfter {  // also when an assertion below returns early
    fs::path dir;
    ~RemoveAfter() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_after{ours};
  const char* saved = std::getenv("HOME");
  const std::string saved_home = saved ? saved : "";
  ::setenv("HOME", ours.c_str(), 1);
  Profile p;
  p.name = "home-writer";
  // What codex does: state under its home, then the version on the first line; and where that home was.
  p.version_argv = {"/bin/sh", "-c", "test -n \"$HOME\" && mkdir -p \"$HOME/.tool/tmp\"; echo \"v1 $HOME\""};
  const std::string v = make_template_spawner(p)->version();
  if (saved) ::setenv("HOME", saved_home.c_str(), 1);
  else ::unsetenv("HOME");
  ASSERT_EQ(v.rfind("v1 ", 0), 0u) << v;
  const fs::path its_home = v.substr(3);
  // With no HOME at all, codex falls back to the passwd entry's home (the real one).
  ASSERT_FALSE(its_home.empty()) << "the version command ran with no HOME";
  EXPECT_NE(its_home, ours);
  EXPECT_FALSE(fs::exists(ours / ".tool")) << "the version command wrote into the caller's HOME";
  EXPECT_FALSE(fs::exists(its_home)) << "its throw-away home was left behind: " << its_home;
}

}  // namespace
}  // namespace breakout
