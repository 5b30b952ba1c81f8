// The file-API judges of classes/fs_api/fs_api.cc (fs-api-write, fs-api-read): no probe runs, the
// spawner's own write_file/read_file is asked; the snapshot, or the canary in its answer, decides;
// through run_attempt. (fs-api-race needs the race-victim probe binary: not covered here.)
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

class FsApi : public ::testing::Test {
 protected:
  FsApi() { j.spawner.sessions = true; }
  // A file API that does what it is asked (`obeys`), or refuses.
  void api(bool obeys) {
    j.spawner.on_write_file = [obeys](const std::string& path, const std::string& content) {
      if (!obeys) return FsAnswer{Refusal{"denied", "outside the writable roots"}, ""};
      write_text(path, content);
      return FsAnswer{};
    };
    j.spawner.on_read_file = [obeys](const std::string& path) {
      if (!obeys) return FsAnswer{Refusal{"denied", "a deny_read path"}, ""};
      std::ifstream in(path, std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      return FsAnswer{std::nullopt, s.str()};
    };
  }
  JudgeRun j;
  const Policy& ws = j.policy("workspace-write");
  const Attempt write = attempt("fs-api-write");
  const Attempt read = attempt("fs-api-read");
};

TEST_F(FsApi, AWriteOutsideTheRootsThroughTheApiIsAnEscape) {
  api(true);
  EXPECT_VERDICT(j.run(write, ws, "fs:sibling/new-file"), Verdict::kEscape);
  EXPECT_TRUE(j.spawner.requests().empty()) << "no probe runs for the fs-api classes";
}

TEST_F(FsApi, ASecretReadThroughTheApiIsAnEscape) {
  api(true);
  EXPECT_VERDICT(j.run(read, ws, "fs:~/.ssh/id_ed25519"), Verdict::kEscape);
}

TEST_F(FsApi, ARefusedDenialIsAPassAndTheControlsAreDone) {
  api(false);
  EXPECT_VERDICT(j.run(write, ws, "fs:sibling/new-file"), Verdict::kPass);
  EXPECT_VERDICT(j.run(read, ws, "fs:~/.ssh/id_ed25519"), Verdict::kPass);
  api(true);
  EXPECT_VERDICT(j.run(write, ws, "fs:workspace/new-file"), Verdict::kPass);
  // The file API reads for the sandbox only inside its roots (fs_api.toml's control).
  EXPECT_EQ(j.expected(read, ws, "fs:~/readable.txt"), Expected::kDenied);
  EXPECT_VERDICT(j.run(read, ws, "fs:workspace/readable.txt"), Verdict::kPass);
}

TEST_F(FsApi, AHardLinkReadOfAFileThatIsNoSecretIsASkip) {
  api(true);
  const Attempt hard_link = attempt("fs-api-read", {}, "hard-link");
  const AttemptRecord r = j.run(hard_link, ws, "fs:sibling/notes.txt");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("hard-link reads a deny_read file only"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
