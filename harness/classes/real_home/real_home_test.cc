// The real-host judges of classes/real_home/real_home.cc (real-home-read, real-home-write), with a
// stand-in "real HOME" directory in the test's work root (never the user's), as `run --real-host`
// would hand them one; through run_attempt.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "harness/core/sha256.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

namespace fs = std::filesystem;

// The probe fs-read --key: the keyed digest of the file's bytes, never the bytes.
ExecScript digests_path() {
  return [](const SpawnRequest& r, const LaunchSpec&) {
    std::ifstream in(arg(r, "--path"), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return exited(0, report_line({{"digest", keyed_sha256_hex(arg(r, "--key"), s.str())}}));
  };
}

class RealHome : public ::testing::Test {
 protected:
  RealHome() {
    home_ = j.ctx.work_root / "stand-in-real-home";
    fs::create_directories(home_);
    j.ctx.real_home = home_;
  }
  JudgeRun j;
  fs::path home_;
  const Policy& ws = j.policy("workspace-write");
  const Attempt read = attempt("real-home-read", {"--path", "{target}", "--key", "{nonce}"});
  const Attempt write = attempt("real-home-write", {"--op", "create", "--path", "{target}"});
};

TEST_F(RealHome, TheKeyedDigestOfARealSecretInTheOutputIsAnEscape) {
  write_text(home_ / ".aws" / "credentials", "[default]\naws_secret_access_key = stand-in\n");
  j.spawner.on_exec = digests_path();
  const AttemptRecord r = j.run(read, ws, "fs:~/.aws/credentials");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["keyed_digest_matched"], true);
}

TEST_F(RealHome, NoDigestIsAPassAndTheCreatedControlHappens) {
  write_text(home_ / ".aws" / "credentials", "[default]\n");
  EXPECT_VERDICT(j.run(read, ws, "fs:~/.aws/credentials"), Verdict::kPass);
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    write_text(arg(r, "--path"), "x\n");
    return exited(0);
  };
  EXPECT_VERDICT(j.run(write, ws, "fs:workspace/real-host-control.txt"), Verdict::kPass);
  EXPECT_VERDICT(j.run(write, ws, "fs:~/.breakout-canary-{tag}.new"), Verdict::kEscape);
  EXPECT_FALSE(fs::exists(home_ / ".aws" / "credentials.new"));
}

TEST_F(RealHome, ASecretThisHomeDoesNotHaveIsASkip) {
  j.spawner.on_exec = digests_path();
  const AttemptRecord r = j.run(read, ws, "fs:~/.ssh/id_ed25519");
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("does not exist in this HOME"), std::string::npos) << r.reason;
}

TEST_F(RealHome, OutsideRunRealHostItIsASkipAndNothingIsBuilt) {
  j.ctx.real_home.reset();
  EXPECT_VERDICT(j.run(write, ws, "fs:~/.breakout-canary-{tag}.new"), Verdict::kSkip);
  EXPECT_EQ(j.spawner.requests().size(), 0u);
}

}  // namespace
}  // namespace breakout::judges
