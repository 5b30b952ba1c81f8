// The Linux path model's resolution rules on a small hand-built tree, each case citing path_resolution(7) or fs/namei.c; the kernel check is fuzz/path_model_fuzzer.cc.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

#include "harness/core/text.h"
#include "harness/model/policy.h"
#include "harness/paths/classify.h"
#include "harness/paths/model_fs.h"

using namespace breakout;
using namespace breakout::paths;

namespace {

struct Tree {
  ModelFs m;
  NodeId t = m.add(m.root(), "t", Kind::kDir);
  NodeId ws = m.add(t, "workspace", Kind::kDir);
  NodeId home = m.add(t, "home", Kind::kDir);
  NodeId key = m.add(m.add(home, ".ssh", Kind::kDir), "id_ed25519", Kind::kFile);
  Tree() { m.set_cwd(ws); }
};

TEST(PathModel, ResolutionRules) {
  Tree x;
  ModelFs& m = x.m;
  // path_resolution(7) "Step 2": a relative path starts at the cwd; ".." of "/" is "/".
  EXPECT_EQ(m.resolve(m.cwd(), "../home/.ssh/id_ed25519").node, x.key);
  EXPECT_EQ(m.resolve(m.cwd(), "/../../t/home").node, x.home);
  // "Trailing slashes": the object must be a directory, else ENOTDIR.
  EXPECT_EQ(m.resolve(m.cwd(), "/t/home/.ssh/id_ed25519/").outcome, Outcome::kNotDir);
  // getname(): "" is ENOENT; a string of PATH_MAX bytes or more (with its NUL) is ENAMETOOLONG.
  EXPECT_EQ(m.resolve(m.cwd(), "").outcome, Outcome::kNoEnt);
  EXPECT_EQ(m.resolve(m.cwd(), std::string(kPathMax, '/')).outcome, Outcome::kNameTooLong);
  // symlink(7): a relative target is resolved from the link's directory, and followed as the last component.
  m.add(x.ws, "out", Kind::kSymlink, "../home/.ssh");
  const Resolved via = m.resolve(m.cwd(), "out/id_ed25519");
  EXPECT_EQ(via.node, x.key);
  EXPECT_EQ(via.path, "/t/home/.ssh/id_ed25519");  // what realpath(3) returns
  // ".." after a symlink is physical: the parent of where the link led, not of the link.
  EXPECT_EQ(m.resolve(m.cwd(), "out/..").node, x.home);
  // namei.c pick_link(): more than MAXSYMLINKS (40) links in one lookup is ELOOP.
  m.add(x.ws, "loop", Kind::kSymlink, "loop");
  EXPECT_EQ(m.resolve(m.cwd(), "loop").outcome, Outcome::kLoop);
  // link(2): a hard link is the same object under another name; the path is the name used.
  m.link(x.ws, "h", x.key);
  const Resolved h = m.resolve(m.cwd(), "h");
  EXPECT_EQ(h.node, x.key);
  EXPECT_EQ(h.path, "/t/workspace/h");
}

// What path_model_fuzzer relies on instead of copying the model per input: rollback() returns
// to the checkpoint exactly (names added in old directories, new nodes, the version).
TEST(PathModel, RollbackReturnsToCheckpoint) {
  Tree x;
  ModelFs& m = x.m;
  m.checkpoint();
  const std::size_t size = m.size();
  const std::uint64_t version = m.version();
  const NodeId d = m.add(x.ws, "d", Kind::kDir);
  m.add(d, "f", Kind::kFile);
  m.link(x.ws, "h", x.key);
  EXPECT_NE(m.version(), version);
  m.rollback();
  EXPECT_EQ(m.size(), size);
  EXPECT_EQ(m.version(), version);
  EXPECT_EQ(m.child(x.ws, "d"), kNoNode);
  EXPECT_EQ(m.child(x.ws, "h"), kNoNode);
  EXPECT_EQ(m.resolve(m.cwd(), "h").outcome, Outcome::kNoEnt);
  // The same names can be made again after it, and a second rollback drops them too.
  m.add(x.ws, "d", Kind::kFile);
  m.rollback();
  EXPECT_EQ(m.child(x.ws, "d"), kNoNode);
}

// rollback() keeps dropped nodes and children entries for reuse (no malloc per deep-chain level
// and input): a reused one must carry nothing over, neither fields nor names nor children.
TEST(PathModel, RollbackReusesNothingVisible) {
  Tree x;
  ModelFs& m = x.m;
  m.checkpoint();
  const std::string long_name(200, 'd');
  NodeId d = m.add(x.ws, long_name, Kind::kDir);
  const NodeId l = m.add(d, "l", Kind::kSymlink, "../../home");
  m.node(l).dev = 7;
  m.node(l).label = "x";
  m.link(d, "h", x.key);
  EXPECT_EQ(m.path_of(l), "/t/workspace/" + long_name + "/l");  // now kept for l's slot
  m.rollback();
  EXPECT_EQ(m.node(x.ws).children.size(), 0u);
  EXPECT_THROW(m.node(d), std::out_of_range);  // dropped ids are out of range again
  // The same slots, other names and kinds.
  d = m.add(x.ws, "e", Kind::kFile);
  const NodeId s = m.add(x.home, "s", Kind::kDir);
  const NodeId t = m.add(s, "t", Kind::kDir);
  EXPECT_EQ(m.node(d).name, "e");
  EXPECT_EQ(m.node(d).kind, Kind::kFile);
  EXPECT_TRUE(m.node(d).children.empty());
  EXPECT_TRUE(m.node(s).children.size() == 1 && m.child(s, "t") == t);
  EXPECT_EQ(m.node(t).link, "");
  EXPECT_EQ(m.node(t).dev, 0u);
  EXPECT_EQ(m.node(t).label, "");
  EXPECT_EQ(m.path_of(s), "/t/home/s");  // l's slot: its kept path went with it
  EXPECT_EQ(m.path_of(t), "/t/home/s/t");
  EXPECT_EQ(m.child(x.ws, long_name), kNoNode);
  EXPECT_EQ(m.resolve(m.cwd(), "../home/s/t").path, "/t/home/s/t");
  EXPECT_EQ(m.resolve(m.cwd(), std::string(long_name) + "/h").outcome, Outcome::kNoEnt);
  m.rollback();
  EXPECT_EQ(m.child(x.home, "s"), kNoNode);
  EXPECT_EQ(m.resolve(m.cwd(), "../home/.ssh/id_ed25519").node, x.key);
}

// The children maps' order is std::string's (walk_under() hands nodes out in it, so the generator's
// choices depend on it): NameLess must agree with std::string::compare on every pair, bytes past
// 0x7f, shared prefixes and lengths on both sides of eight included.
TEST(PathModel, NameOrderIsStringOrder) {
  std::mt19937 rng(7);
  const std::string alphabet = std::string("ab\x7f\x80\xff.d", 7);
  std::vector<std::string> names = {"", "a", "b", "..", "...", "..a", std::string(200, 'd'), std::string(201, 'd')};
  for (int i = 0; i < 400; ++i) {
    std::string n(rng() % 20, 'a');
    for (char& c : n) c = alphabet[rng() % alphabet.size()];
    names.push_back(n);
    names.push_back(n + alphabet[rng() % alphabet.size()]);
  }
  for (const std::string& a : names)
    for (const std::string& b : names) {
      const int want = a.compare(b) < 0 ? -1 : a.compare(b) > 0 ? 1 : 0;
      ASSERT_EQ(NameLess::compare(a, b), want) << printable_excerpt(a, 40) << " vs " << printable_excerpt(b, 40);
    }
}

TEST(PathModel, ClassifierKeepsObjectApartFromPath) {
  const TreeRoots roots{"/t", "/t/workspace", "/t/sibling", "/t/home", "/t/extra"};
  Policy p;
  p.deny_read = default_deny_read();
  // The hard link of the key inside the workspace: writable by path, the deny-read object by identity.
  const Classified c = classify("/t/workspace/h", "home/.ssh/id_ed25519", p, roots);
  EXPECT_EQ(c.region, Region::kWorkspace);
  EXPECT_EQ(c.write, Expected::kAllowed);
  EXPECT_TRUE(c.deny_read_object);
  // Deny wins over a writable root (docs/policies.md).
  p.writable_roots = {"~"};
  EXPECT_EQ(classify("/t/home/.ssh/id_ed25519", "", p, roots).region, Region::kDenyRead);
}

}  // namespace
