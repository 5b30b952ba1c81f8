// The spawner-follow judge of classes/handover/spawner_follow.cc: what the spawner writes every exec
// is learnt from two no-op execs, a link is planted there, and the spawner's next write through it
// is judged by the snapshot; through run_attempt. The fake spawner keeps a state file in the
// workspace (a path the sandboxed command can replace) and appends to it on every exec.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

enum class Writes { kNothing, kFollowingLinks, kNoFollow };

// The spawner's routine write, then (for the probe fs-write --op plant-link) the plant: the path
// moved aside and a symlink to --src in its place.
ExecScript spawner_with_state(Writes how) {
  return [how](const SpawnRequest& r, const LaunchSpec&) {
    const fs::path state = r.roots.workspace / ".spawner-state" / "exec.log";
    if (how == Writes::kFollowingLinks) {
      append_text(state, "exec\n");  // std::ofstream follows a link at `state`
    } else if (how == Writes::kNoFollow) {
      fs::create_directories(state.parent_path());
      const int fd = ::open(state.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd >= 0) {
        check(::write(fd, "exec\n", 5) == 5, "fake", "write");
        ::close(fd);
      }
    }
    const auto& argv = r.probe_argv;
    if (std::find(argv.begin(), argv.end(), "plant-link") != argv.end()) {
      const fs::path path = arg(r, "--path"), src = arg(r, "--src");
      fs::rename(path, path.string() + ".aside");
      fs::create_symlink(src, path);
    }
    return exited(0);
  };
}

class SpawnerFollow : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt a = attempt("spawner-follow", {"--op", "plant-link", "--src", "{target}", "--path", "{workspace}"});
};

TEST_F(SpawnerFollow, ASpawnerThatWritesThroughThePlantedLinkIsAnEscape) {
  j.spawner.on_exec = spawner_with_state(Writes::kFollowingLinks);
  const AttemptRecord r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["written_every_exec"].size(), 1u);
  EXPECT_EQ(r.evidence["written_through_a_planted_link"].size(), 1u);
  EXPECT_EQ(j.spawner.requests().size(), 4u);  // two no-ops to learn, the plant, the follow-up
}

TEST_F(SpawnerFollow, ASpawnerThatDoesNotFollowIsAPass) {
  j.spawner.on_exec = spawner_with_state(Writes::kNoFollow);
  const AttemptRecord r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kPass);
  EXPECT_EQ(r.evidence["plants_on_the_host"].size(), 1u);
}

TEST_F(SpawnerFollow, ASpawnerThatWritesNothingPredictableIsASkip) {
  j.spawner.on_exec = spawner_with_state(Writes::kNothing);
  const AttemptRecord r = j.run(a, ws, "fs:sibling");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("wrote nothing at the same path"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
