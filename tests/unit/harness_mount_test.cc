// HarnessMount (harness/host/harness_mount.h): the harness-owned mounts of submount-write (a tmpfs)
// and bind-alias-connect (a socket bind-mounted at a second name). Bounded, refused over an existing
// entry, and gone (unmounted, mount point removed) when the object goes, also when the mount is
// still busy. Needs root; skips with the reason otherwise.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/host/harness_mount.h"
#include "tests/unit/error_code.h"

namespace breakout {
namespace {

namespace fs = std::filesystem;

class HarnessMountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/breakout-mount-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    base_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }
  fs::path base_;
};

TEST_F(HarnessMountTest, MountsABoundedTmpfsAndRemovesItWhenItGoes) {
  const fs::path dir = base_ / "run-user";
  {
    HarnessMount::Made made = HarnessMount::tmpfs(dir, 1u << 20);
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

TEST_F(HarnessMountTest, ABusyMountIsDetachedAndItsDirectoryRemoved) {
  const fs::path dir = base_ / "busy";
  int held = -1;
  {
    HarnessMount::Made made = HarnessMount::tmpfs(dir, 1u << 16);
    if (!made.mount) GTEST_SKIP() << *made.unavailable;
    std::ofstream(dir / "open") << "x";
    held = ::open((dir / "open").c_str(), O_RDONLY);  // a process still inside, as a probe not yet killed
    ASSERT_GE(held, 0);
  }
  EXPECT_FALSE(fs::exists(dir));
  ::close(held);
}

TEST_F(HarnessMountTest, RefusesToCoverAnExistingDirectory) {
  fs::create_directory(base_ / "planted");
  std::ofstream(base_ / "planted" / "canary") << "kept";
  EXPECT_EQ(test_util::code_of([&] { HarnessMount::tmpfs(base_ / "planted", 1u << 16); }), "bad-target");
  EXPECT_TRUE(fs::exists(base_ / "planted" / "canary"));
  EXPECT_FALSE(is_mount_point(base_ / "planted"));
}

TEST_F(HarnessMountTest, UnmountIsIdempotent) {
  HarnessMount::Made made = HarnessMount::tmpfs(base_ / "twice", 1u << 16);
  if (!made.mount) GTEST_SKIP() << *made.unavailable;
  EXPECT_EQ(made.mount->unmount(), std::nullopt);
  EXPECT_EQ(made.mount->unmount(), std::nullopt);
  EXPECT_FALSE(fs::exists(base_ / "twice"));
}

// A listening path socket, closed (and unlinked) when it goes.
class Listener {
 public:
  explicit Listener(const fs::path& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    ok_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0 && ::listen(fd_, 4) == 0;
  }
  ~Listener() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  bool ok() const { return ok_; }
  // Whether a connection waits in the backlog (accepted and closed here).
  bool accepted() const {
    const int c = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) return false;
    ::close(c);
    return true;
  }

 private:
  fs::path path_;
  int fd_ = -1;
  bool ok_ = false;
};

// connect(2) to `path`; the connected fd, or -errno.
int connect_to(const fs::path& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    const int err = errno;
    ::close(fd);
    return -err;
  }
  return fd;
}

TEST_F(HarnessMountTest, BindsASocketAtASecondNameThatReachesTheSameListener) {
  Listener listener(base_ / "host-service.sock");
  ASSERT_TRUE(listener.ok());
  fs::create_directory(base_ / "elsewhere");
  const fs::path alias = base_ / "elsewhere" / "bind-alias.sock";
  {
    HarnessMount::Made made = HarnessMount::bind_file(base_ / "host-service.sock", alias);
    if (!made.mount) GTEST_SKIP() << *made.unavailable;
    EXPECT_EQ(made.mount->path(), alias);
    EXPECT_EQ(made.mount->bytes(), 0u);
    EXPECT_TRUE(is_mount_point(alias));
    EXPECT_TRUE(fs::is_socket(alias)) << "the alias is the socket's inode, not the empty file under it";
    const int fd = connect_to(alias);
    ASSERT_GE(fd, 0) << std::strerror(-fd);
    EXPECT_TRUE(listener.accepted()) << "the connect through the alias reached the harness's listener";
    ::close(fd);
  }
  EXPECT_FALSE(fs::exists(alias)) << "the mount point is removed with the mount";
  EXPECT_TRUE(fs::is_socket(base_ / "host-service.sock")) << "the source is the listener's, never touched";
  EXPECT_EQ(connect_to(alias), -ENOENT);
}

TEST_F(HarnessMountTest, ABusyBindIsDetachedAndItsFileRemoved) {
  Listener listener(base_ / "s.sock");
  ASSERT_TRUE(listener.ok());
  const fs::path alias = base_ / "busy.sock";
  int held = -1;
  {
    HarnessMount::Made made = HarnessMount::bind_file(base_ / "s.sock", alias);
    if (!made.mount) GTEST_SKIP() << *made.unavailable;
    held = ::open(alias.c_str(), O_PATH | O_CLOEXEC);  // a probe still holding it, not yet killed
    ASSERT_GE(held, 0);
  }
  EXPECT_FALSE(fs::exists(alias));
  ::close(held);
}

TEST_F(HarnessMountTest, ABindRefusesToCoverAnExistingFileOrToBindADirectory) {
  Listener listener(base_ / "s.sock");
  ASSERT_TRUE(listener.ok());
  std::ofstream(base_ / "canary") << "kept";
  EXPECT_EQ(test_util::code_of([&] { HarnessMount::bind_file(base_ / "s.sock", base_ / "canary"); }), "bad-target");
  EXPECT_FALSE(is_mount_point(base_ / "canary"));
  EXPECT_TRUE(fs::is_regular_file(base_ / "canary"));
  fs::create_directory(base_ / "dir");
  EXPECT_EQ(test_util::code_of([&] { HarnessMount::bind_file(base_ / "dir", base_ / "dir-alias"); }), "bad-target");
  EXPECT_FALSE(fs::exists(base_ / "dir-alias"));
}

TEST_F(HarnessMountTest, UnmountOfABindIsIdempotent) {
  Listener listener(base_ / "s.sock");
  ASSERT_TRUE(listener.ok());
  HarnessMount::Made made = HarnessMount::bind_file(base_ / "s.sock", base_ / "twice.sock");
  if (!made.mount) GTEST_SKIP() << *made.unavailable;
  EXPECT_EQ(made.mount->unmount(), std::nullopt);
  EXPECT_EQ(made.mount->unmount(), std::nullopt);
  EXPECT_FALSE(fs::exists(base_ / "twice.sock"));
  EXPECT_TRUE(fs::is_socket(base_ / "s.sock"));
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
