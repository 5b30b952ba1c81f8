// detach_mounts_under: a mount left in a tree is detached before the tree is removed, so
// remove_all never deletes the files of a host directory bound there (Linux, as root).
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/core/nonce.h"
#include "harness/paths/attempt_tree.h"
#include "harness/platform/tree_mounts.h"

namespace fs = std::filesystem;
using breakout::detach_mounts_under;

namespace {

// A "host" directory with a file, and a tree with a bind of it two levels down (and a name that
// mountinfo escapes: a space). Removed (detached first) at the end, whatever the test did.
struct BoundTree {
  fs::path base, host, tree, point;
  bool bound = false;
  BoundTree() {
    base = fs::temp_directory_path() / ("breakout-tree-mounts-" + breakout::random_hex(8));
    host = base / "host";
    tree = base / "tree";
    point = tree / "ws" / "a dir";
    fs::create_directories(host);
    fs::create_directories(point);
    std::ofstream(host / "keep") << "host file\n";
    bound = ::geteuid() == 0 && ::mount(host.c_str(), point.c_str(), nullptr, MS_BIND, nullptr) == 0;
  }
  ~BoundTree() {
    detach_mounts_under(base);
    std::error_code ec;
    fs::remove_all(base, ec);
  }
};

}  // namespace

TEST(TreeMounts, ABindInTheTreeIsDetachedSoRemovingTheTreeKeepsTheHostFiles) {
  BoundTree t;
  if (!t.bound) GTEST_SKIP() << "needs root and mount(2) (a bind mount)";
  ASSERT_TRUE(fs::exists(t.point / "keep"));
  std::vector<fs::path> detached;
  ASSERT_TRUE(detach_mounts_under(t.tree, &detached));
  ASSERT_EQ(detached.size(), 1u);
  EXPECT_EQ(detached[0], t.point);  // unescaped from mountinfo's "a\040dir"
  std::error_code ec;
  fs::remove_all(t.tree, ec);
  EXPECT_FALSE(fs::exists(t.tree));
  EXPECT_TRUE(fs::exists(t.host / "keep"));
}

TEST(TreeMounts, StackedMountsAreAllDetachedAndSiblingsOfThePrefixAreLeft) {
  BoundTree t;
  if (!t.bound) GTEST_SKIP() << "needs root and mount(2) (a bind mount)";
  ASSERT_EQ(::mount(t.host.c_str(), t.point.c_str(), nullptr, MS_BIND, nullptr), 0);  // a second, on top
  const fs::path sibling = t.base / "tree-sibling";  // shares the prefix "tree" as a string, not as a path
  fs::create_directories(sibling);
  ASSERT_EQ(::mount(t.host.c_str(), sibling.c_str(), nullptr, MS_BIND, nullptr), 0);
  std::vector<fs::path> detached;
  EXPECT_TRUE(detach_mounts_under(t.tree, &detached));
  EXPECT_EQ(detached.size(), 2u);
  EXPECT_TRUE(fs::exists(sibling / "keep"));  // still mounted: not under the tree
  EXPECT_TRUE(detach_mounts_under(sibling));
  EXPECT_FALSE(fs::exists(sibling / "keep"));
}

TEST(TreeMounts, NothingMountedIsTrueAndDetachesNothing) {
  BoundTree t;
  std::vector<fs::path> detached;
  EXPECT_TRUE(detach_mounts_under(t.host, &detached));
  EXPECT_TRUE(detached.empty());
  EXPECT_TRUE(detach_mounts_under(t.base / "does-not-exist", &detached));
  EXPECT_TRUE(detached.empty());
}

// "/" and "" are never a tree. Asked in a child with a private mount namespace, so that a broken
// guard detaches the child's copies of the host's mounts, never the host's.
TEST(TreeMounts, TheRootIsNeverATree) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (a private mount namespace)";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(2);
    std::vector<fs::path> detached;
    const bool root = detach_mounts_under("/", &detached), empty = detach_mounts_under("", &detached);
    ::_exit(!root && !empty && detached.empty() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "unshare(CLONE_NEWNS) or making / private failed";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// The call site that matters: an attempt tree whose workspace holds a bind of a host directory
// (what a sandbox that lets mounts propagate to the host could leave) is removed without a
// single host file going with it, with a pool to give it back to and without.
TEST(TreeMounts, AnAttemptTreeWithAMountInItsWorkspaceLeavesTheHostFiles) {
  BoundTree t;
  if (!t.bound) GTEST_SKIP() << "needs root and mount(2) (a bind mount)";
  for (const bool pooled : {false, true}) {
    breakout::TreePool pool;
    fs::path workspace;
    {
      breakout::AttemptTree tree(t.base / "work", 0, breakout::random_hex(16), nullptr, pooled ? &pool : nullptr);
      workspace = tree.roots().workspace;
      const fs::path in_ws = workspace / "mounted";
      fs::create_directories(in_ws);
      ASSERT_EQ(::mount(t.host.c_str(), in_ws.c_str(), nullptr, MS_BIND, nullptr), 0);
      ASSERT_TRUE(fs::exists(in_ws / "keep"));
    }
    EXPECT_TRUE(fs::exists(t.host / "keep")) << (pooled ? "pooled" : "not pooled");
    EXPECT_FALSE(fs::exists(workspace / "mounted" / "keep")) << (pooled ? "pooled" : "not pooled");
  }
}
