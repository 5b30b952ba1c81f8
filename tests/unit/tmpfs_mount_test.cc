// TmpfsMount (harness/oracle/tmpfs_mount.h): the submount-write class's harness-owned tmpfs.
// Bounded, refused over an existing directory, and gone (unmounted, directory removed) when the
// object goes, also when the mount is still busy. Needs root; skips with the reason otherwise.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/oracle/tmpfs_mount.h"
#include "tests/unit/error_code.h"

namespace breakout {
namespace {

namespace fs = std::filesystem;

class TmpfsMountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/breakout-tmpfs-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    base_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }
  fs::path base_;
};

TEST_F(TmpfsMountTest, MountsABoundedTmpfsAndRemovesItWhenItGoes) {
  const fs::path dir = base_ / "run-user";
  {
    TmpfsMount::Made made = TmpfsMount::make(dir, 1u << 20);
    if (!made.mount) GTEST_SKIP() << *made.unavailable;
    EXPECT_TRUE(is_mount_point(dir));
    EXPECT_FALSE(is_mount_point(base_));
    std::ofstream(dir / "f") << "inside";
    EXPECT_TRUE(fs::exists(dir / "f"));
    // The bound: 2 MiB into a 1 MiB tmpfs fails (ENOSPC) instead of filling the host's memory.
    const int fd = ::open((dir / "big").c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    const std::string chunk(64 * 1024, 'x');
    std::size_t written = 0;
    int err = 0;
    while (written < (2u << 20)) {
      const ssize_t n = ::write(fd, chunk.data(), chunk.size());
      if (n < 0) {
        err = errno;
        break;
      }
      written += static_cast<std::size_t>(n);
    }
    ::close(fd);
    EXPECT_EQ(err, ENOSPC);
    EXPECT_LE(written, 1u << 20);
  }
  EXPECT_FALSE(fs::exists(dir)) << "the mount point is removed with the mount";
  EXPECT_FALSE(is_mount_point(dir));
}

TEST_F(TmpfsMountTest, ABusyMountIsDetachedAndItsDirectoryRemoved) {
  const fs::path dir = base_ / "busy";
  int held = -1;
  {
    TmpfsMount::Made made = TmpfsMount::make(dir, 1u << 16);
    if (!made.mount) GTEST_SKIP() << *made.unavailable;
    std::ofstream(dir / "open") << "x";
    held = ::open((dir / "open").c_str(), O_RDONLY);  // a process still inside, as a probe not yet killed
    ASSERT_GE(held, 0);
  }
  EXPECT_FALSE(fs::exists(dir));
  ::close(held);
}

TEST_F(TmpfsMountTest, RefusesToCoverAnExistingDirectory) {
  fs::create_directory(base_ / "planted");
  std::ofstream(base_ / "planted" / "canary") << "kept";
  EXPECT_EQ(test_util::code_of([&] { TmpfsMount::make(base_ / "planted", 1u << 16); }), "bad-target");
  EXPECT_TRUE(fs::exists(base_ / "planted" / "canary"));
  EXPECT_FALSE(is_mount_point(base_ / "planted"));
}

TEST_F(TmpfsMountTest, UnmountIsIdempotent) {
  TmpfsMount::Made made = TmpfsMount::make(base_ / "twice", 1u << 16);
  if (!made.mount) GTEST_SKIP() << *made.unavailable;
  EXPECT_EQ(made.mount->unmount(), std::nullopt);
  EXPECT_EQ(made.mount->unmount(), std::nullopt);
  EXPECT_FALSE(fs::exists(base_ / "twice"));
}

TEST(HostRunUser, IsDescribedNeverCreated) {
  const fs::path p = fs::path("/run/user") / std::to_string(::geteuid());
  const bool existed = fs::exists(p);
  const std::string said = host_run_user_state();
  EXPECT_EQ(said.rfind(p.string(), 0), 0u) << said;
  EXPECT_EQ(fs::exists(p), existed);
  if (!existed) {
    EXPECT_NE(said.find("absent"), std::string::npos) << said;
  }
}

}  // namespace
}  // namespace breakout
