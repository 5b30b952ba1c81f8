// Tests of TreePool (tree.h): a recycled attempt tree is indistinguishable from a fresh one, or it is not used.
#include "harness/paths/attempt_tree.h"

#include <sys/stat.h>
#include <sys/xattr.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "harness/attempt/work_root.h"
#include "harness/core/nonce.h"
#include "harness/host/fs_snapshot.h"

using breakout::AttemptTree;
using breakout::TreePool;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void append(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::app);
  out << text;
}

// What an attempt's oracles can see of a tree, one line per entry, without inode numbers and
// with each canary's digest replaced by a check that the file holds exactly its own token.
std::map<std::string, std::string> seen(const AttemptTree& t) {
  std::map<std::string, std::string> out;
  for (const auto& [key, st] : breakout::take_snapshot(t.roots().tree)) {
    const fs::path p = t.roots().tree / key;
    const std::string token = t.token_of(p);
    std::string line = std::string(1, st.type) + " mode " + std::to_string(st.mode) + " owner " +
                       std::to_string(st.uid) + ":" + std::to_string(st.gid) + " size " + std::to_string(st.size) +
                       " nlink " + std::to_string(st.nlink) + " digest " +
                       (token.empty() ? st.digest : read_all(p) == token + "\n" ? "canary ok" : "canary WRONG");
    for (const auto& [name, value] : st.xattrs) line += " xattr " + name + "=" + value;
    out[key] = line;
  }
  return out;
}

std::uint64_t inode_of(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

std::size_t entries_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

class TreePoolTest : public ::testing::Test {
 protected:
  breakout::WorkRoot work{"tree-pool-test-" + breakout::random_hex(6)};
  TreePool pool;
  int index = 0;
  std::unique_ptr<AttemptTree> make(TreePool* p) {
    return std::make_unique<AttemptTree>(work.path(), index++, breakout::random_hex(16), nullptr, p);
  }
  // A tree built without the pool, as every attempt had before: the reference.
  std::map<std::string, std::string> fresh() { return seen(*make(nullptr)); }
};

TEST_F(TreePoolTest, RecycledTreeIsAFreshTreeWithNewTokensInTheSameInodes) {
  auto a = make(&pool);
  const std::string old_token = a->token_of(a->roots().sibling / "notes.txt");
  const auto old_inode = inode_of(a->roots().workspace / "existing.txt");
  const fs::path old_root = a->roots().tree;
  a.reset();
  EXPECT_FALSE(fs::exists(old_root));
  auto b = make(&pool);
  EXPECT_EQ(pool.reused(), 1u);
  EXPECT_EQ(pool.rebuilt(), 0u);
  EXPECT_EQ(inode_of(b->roots().workspace / "existing.txt"), old_inode);  // recycled, not rebuilt
  const std::string new_token = b->token_of(b->roots().sibling / "notes.txt");
  EXPECT_FALSE(new_token.empty());
  EXPECT_NE(new_token, old_token);
  EXPECT_EQ(b->canaries().size(), 8u);  // every canary of a fresh tree, each with a new token
  EXPECT_EQ(seen(*b), fresh());
}

// What a probe that escaped might leave in its tree: new files and directories, changed files
// and canaries, a hard link and a symlink, modes changed (a directory closed).
void do_what_an_escape_might(const breakout::TreeRoots& r) {
  append(r.workspace / "new-file", "created by the probe\n");
  fs::create_directories(r.sibling / "new dir/deeper");
  append(r.sibling / "new dir/deeper/f", "x");
  append(r.sibling / "existing.txt", "appended\n");   // a plain file changed
  append(r.home / ".bashrc", "evil\n");
  append(r.home / ".ssh/id_ed25519", "more\n");       // a canary changed
  fs::create_hard_link(r.sibling / "notes.txt", r.workspace / "link");  // nlink 2 until the link goes
  fs::create_symlink("../sibling", r.workspace / "sym");
  fs::permissions(r.home / ".ssh", fs::perms::owner_all | fs::perms::others_read);
  fs::permissions(r.sibling / "repo", fs::perms::none);
  fs::permissions(r.extra / "existing.txt", fs::perms::owner_read);
}

TEST_F(TreePoolTest, WhatAnAttemptDidIsUndone) {
  auto a = make(&pool);
  do_what_an_escape_might(a->roots());
  a.reset();
  auto b = make(&pool);
  EXPECT_EQ(pool.reused(), 1u);
  EXPECT_EQ(pool.rebuilt(), 0u);
  EXPECT_EQ(seen(*b), fresh());
}

TEST_F(TreePoolTest, ATreeThatCannotBeRestoredIsRemovedAndAFreshOneBuilt) {
  auto a = make(&pool);
  fs::remove(a->roots().sibling / "existing.txt");
  fs::create_directory(a->roots().sibling / "existing.txt");  // another type
  ASSERT_EQ(::setxattr(a->roots().workspace.c_str(), "user.breakout", "1", 1, 0), 0);
  a.reset();
  EXPECT_EQ(entries_in(work.path()), 0u);  // not parked: removed
  auto b = make(&pool);
  EXPECT_EQ(pool.reused(), 0u);
  EXPECT_EQ(seen(*b), fresh());
}

// The check at take time is what guarantees a clean tree: a change to a parked tree (made
// after it was restored) must make the pool build a fresh one.
TEST_F(TreePoolTest, AParkedTreeChangedAfterItsRestoreIsNotUsed) {
  for (const char* what : {"content", "xattr", "extra entry", "mode"}) {
    SCOPED_TRACE(what);
    make(&pool).reset();  // parks one tree
    ASSERT_EQ(entries_in(work.path()), 1u);
    const fs::path spare = fs::directory_iterator(work.path())->path();
    const std::string w = what;
    if (w == "content") append(spare / "sibling/repo/.git/HEAD", "x");
    if (w == "xattr") {
      ASSERT_EQ(::setxattr((spare / "home/.profile").c_str(), "user.breakout", "1", 1, 0), 0);
    }
    if (w == "extra entry") append(spare / "home/.config/autostart/evil.desktop", "x");
    if (w == "mode") fs::permissions(spare / "sibling", fs::perms::owner_all);
    const std::size_t rebuilt = pool.rebuilt();
    auto b = make(&pool);
    EXPECT_EQ(pool.rebuilt(), rebuilt + 1);
    EXPECT_EQ(seen(*b), fresh());
    b.reset();  // parks the fresh one: the next round takes and parks it again
  }
}

// give_back may start from the attempt's own after-snapshot (keep_after_snapshot) instead of a
// new walk: the same undoing, with the extras' removal and the link counts it changes.
TEST_F(TreePoolTest, WhatAnAttemptDidIsUndoneFromItsAfterSnapshot) {
  auto a = make(&pool);
  do_what_an_escape_might(a->roots());
  a->keep_after_snapshot(breakout::take_snapshot(a->roots().tree));  // nlink 2 in the kept snapshot
  a.reset();
  auto b = make(&pool);
  EXPECT_EQ(pool.reused(), 1u);
  EXPECT_EQ(pool.rebuilt(), 0u);
  EXPECT_EQ(seen(*b), fresh());
}

// The kept after-snapshot may be stale: whatever changed after it (a survivor still writing)
// is not undone by give_back, so the check at take time must catch it and build afresh.
TEST_F(TreePoolTest, AChangeAfterTheKeptAfterSnapshotIsNotRecycled) {
  for (const char* what : {"same-size content", "canary", "xattr", "extra entry", "mode", "hard link"}) {
    SCOPED_TRACE(what);
    auto a = make(&pool);
    const auto& r = a->roots();
    a->keep_after_snapshot(breakout::take_snapshot(r.tree));
    const std::string w = what;
    if (w == "same-size content") {
      std::fstream f(r.sibling / "existing.txt", std::ios::binary | std::ios::in | std::ios::out);
      f << "SIBLING";  // "sibling file\n" -> "SIBLING file\n": size unchanged
    }
    if (w == "canary") append(r.sibling / "notes.txt", "x");
    if (w == "xattr") {
      ASSERT_EQ(::setxattr((r.home / ".profile").c_str(), "user.breakout", "1", 1, 0), 0);
    }
    if (w == "extra entry") append(r.home / ".config/autostart/evil.desktop", "x");
    if (w == "mode") fs::permissions(r.sibling, fs::perms::owner_all);
    if (w == "hard link") fs::create_hard_link(r.extra / "existing.txt", r.workspace / "link");
    a.reset();
    auto b = make(&pool);
    EXPECT_EQ(seen(*b), fresh());
    b.reset();
  }
}

TEST_F(TreePoolTest, RealHomeTreesAreNeverPooled) {
  const fs::path home = work.path() / "real-home";
  fs::create_directories(home);
  auto a = std::make_unique<AttemptTree>(work.path(), 0, breakout::random_hex(16), &home, &pool);
  a.reset();
  EXPECT_EQ(entries_in(work.path()), 1u);  // only real-home: the tree was removed
  EXPECT_EQ(pool.reused() + pool.rebuilt(), 0u);
}

}  // namespace
