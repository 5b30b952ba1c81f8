// Fail fast: the checks `breakout run` makes before the first attempt (--probes, --out, --driver).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "harness/core/nonce.h"
#include "harness/platform/os.h"
#include "harness/report/out_dir.h"
#include "harness/run/preflight.h"
#include "harness/spawner/driver_spawner.h"
#include "tests/unit/error_code.h"

using namespace breakout;
using breakout::test_util::code_of;
namespace fs = std::filesystem;

namespace {

struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("breakout-preflight-test-" + random_hex(6));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void touch(const fs::path& p, fs::perms mode) {
  std::ofstream(p) << "#!/bin/sh\n";
  fs::permissions(p, mode);
}

Attempt attempt(AttemptClass klass, const std::string& probe) {
  Attempt a;
  a.klass = klass;
  a.probe = probe;
  return a;
}

Execution exec_of(const Attempt& a, std::optional<Target> target = std::nullopt, std::string skip = "") {
  Execution ex;
  ex.attempt = &a;
  ex.target = std::move(target);
  ex.skip_reason = std::move(skip);
  return ex;
}

}  // namespace

TEST(Preflight, ProbesNeededAreTheRunningExecutionsProbesAndTheHarnessHelpers) {
  const Attempt write = attempt(AttemptClass::kFsWrite, "fs-write");
  const Attempt follow = attempt(AttemptClass::kSpawnerFollow, "fs-write");
  const Attempt api = attempt(AttemptClass::kFsApiWrite, kDriverFsProbe);
  const Attempt reach = attempt(AttemptClass::kProcessReach, "proc-reach");
  const Attempt skipped = attempt(AttemptClass::kFsRead, "fs-read");
  const Target victim{TargetKind::kHostObject, "ipc:victim", "victim"};
  EXPECT_EQ(probes_needed({exec_of(write), exec_of(api)}), (std::set<std::string>{"fs-write"}));
  EXPECT_EQ(probes_needed({exec_of(follow)}), (std::set<std::string>{"fs-write", "noop"}));
  EXPECT_EQ(probes_needed({exec_of(reach, victim)}), (std::set<std::string>{"proc-reach", "victim"}));
  const Attempt race = attempt(AttemptClass::kFsApiRace, kDriverFsProbe);
  EXPECT_EQ(probes_needed({exec_of(race)}), (std::set<std::string>{"race-victim"}));
  // A planner skip starts nothing.
  EXPECT_EQ(probes_needed({exec_of(skipped, std::nullopt, "cannot express")}), std::set<std::string>{});
}

TEST(Preflight, MissingAndNonExecutableProbesAreNamed) {
  ScratchDir dir;
  touch(dir.path / "breakout-probe-fs-write", fs::perms::owner_all);
  touch(dir.path / "breakout-probe-fs-read", fs::perms::owner_read | fs::perms::owner_write);
  fs::create_directory(dir.path / "breakout-probe-noop");  // a directory is no probe
  EXPECT_EQ(missing_probes(dir.path, {"fs-write"}), "");
  const std::string why = missing_probes(dir.path, {"fs-write", "fs-read", "noop", "victim"});
  EXPECT_NE(why.find("breakout-probe-fs-read is not an executable file"), std::string::npos) << why;
  EXPECT_NE(why.find("breakout-probe-noop is not an executable file"), std::string::npos) << why;
  EXPECT_NE(why.find("breakout-probe-victim is missing"), std::string::npos) << why;
  EXPECT_EQ(why.find("fs-write"), std::string::npos) << why;

  const Attempt read = attempt(AttemptClass::kFsRead, "fs-read");
  EXPECT_EQ(code_of([&] { check_probes(dir.path, {exec_of(read)}); }), "bad-probes");
  const Attempt write = attempt(AttemptClass::kFsWrite, "fs-write");
  EXPECT_EQ(code_of([&] { check_probes(dir.path, {exec_of(write)}); }), "no error");
}

TEST(Preflight, ProbesDirMustBeADirectory) {
  ScratchDir dir;
  touch(dir.path / "file", fs::perms::owner_all);
  EXPECT_EQ(code_of([&] { check_probes_dir(dir.path); }), "no error");
  EXPECT_EQ(code_of([&] { check_probes_dir(dir.path / "file"); }), "bad-probes");
  EXPECT_EQ(code_of([&] { check_probes_dir(dir.path / "absent"); }), "bad-probes");
}

TEST(Preflight, ResultsDirIsCreatedAndRemovedUnlessKept) {
  ScratchDir dir;
  const fs::path out = dir.path / "a" / "b";
  {
    ResultsDir r(out);
    EXPECT_TRUE(fs::is_directory(out));
    EXPECT_TRUE(fs::is_empty(out));  // the write check's file is gone
  }
  EXPECT_FALSE(fs::exists(dir.path / "a"));  // both levels it made, nothing was written
  {
    ResultsDir r(out);
    std::ofstream(out / "results.json") << "{}";
    r.keep();
  }
  EXPECT_TRUE(fs::exists(out / "results.json"));
  {
    ResultsDir existing(dir.path);  // there before: never removed
  }
  EXPECT_TRUE(fs::is_directory(dir.path));
}

TEST(Preflight, UnwritableResultsDirIsBadOut) {
  ScratchDir dir;
  touch(dir.path / "file", fs::perms::owner_all);
  EXPECT_EQ(code_of([&] { ResultsDir r(dir.path / "file" / "out"); }), "bad-out");  // parent is a file
  EXPECT_EQ(code_of([&] { ResultsDir r(dir.path / "file"); }), "bad-out");          // a file, not a directory
  // A directory that exists but takes no file (root ignores modes, so a kernel file system is used).
  EXPECT_EQ(code_of([] { ResultsDir r("/proc"); }), "bad-out");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);  // nothing left
}

TEST(Preflight, FindExecutableUsesTheGivenSearchPath) {
  ScratchDir dir;
  touch(dir.path / "my-driver", fs::perms::owner_all);
  touch(dir.path / "not-exec", fs::perms::owner_read);
  EXPECT_EQ(find_executable("my-driver", "/nonexistent:" + dir.path.string()), (dir.path / "my-driver").string());
  EXPECT_EQ(find_executable("my-driver", "/usr/bin:/bin"), std::nullopt);
  EXPECT_EQ(find_executable("not-exec", dir.path.string()), std::nullopt);
  EXPECT_EQ(find_executable((dir.path / "my-driver").string(), ""), (dir.path / "my-driver").string());
  EXPECT_EQ(find_executable(dir.path.string(), ""), std::nullopt);  // a directory
}

TEST(Preflight, DriverProgramMissingNamesTheCallersPath) {
  ScratchDir dir;
  touch(dir.path / "my-driver", fs::perms::owner_all);
  EXPECT_EQ(driver_program_missing({"my-driver", "--x"}, dir.path.string()), std::nullopt);
  const auto why = driver_program_missing({"my-driver"}, "/usr/bin:/bin");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("not found on the caller's PATH (PATH=/usr/bin:/bin)"), std::string::npos) << *why;
  const auto not_exec = driver_program_missing({(dir.path / "absent.py").string()}, "/usr/bin");
  ASSERT_TRUE(not_exec);
  EXPECT_NE(not_exec->find("is not an executable file"), std::string::npos) << *not_exec;
  EXPECT_TRUE(driver_program_missing({}, "/usr/bin"));
}
