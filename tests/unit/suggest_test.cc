// "Did you mean" (core/suggest.h): the CLI's unknown command, spawner and suite errors name the nearest valid name.
#include <gtest/gtest.h>

#include "harness/core/suggest.h"

using namespace breakout;

TEST(EditDistance, SwappedNeighboursAreOneEdit) {
  EXPECT_EQ(edit_distance("rnu", "run"), 1u);
  EXPECT_EQ(edit_distance("bwarp", "bwrap"), 1u);
  EXPECT_EQ(edit_distance("defualt", "default"), 1u);
}

TEST(EditDistance, InsertDeleteReplaceAndCase) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("firejal", "firejail"), 1u);
  EXPECT_EQ(edit_distance("BWRAP", "bwrap"), 0u);
  EXPECT_EQ(edit_distance("list", "listen"), 2u);
}

TEST(ClosestName, PicksTheNearestValidName) {
  const std::vector<std::string> commands = {"list", "run", "listen", "merge", "diff", "history",
                                             "report", "baseline", "bench", "repro"};
  EXPECT_EQ(closest_name("rnu", commands), "run");
  EXPECT_EQ(closest_name("lsit", commands), "list");
  EXPECT_EQ(closest_name("reprot", commands), "report");
  const std::vector<std::string> spawners = {"none", "bwrap", "codex-linux", "firejail", "srt"};
  EXPECT_EQ(closest_name("bwarp", spawners), "bwrap");
  EXPECT_EQ(closest_name("codex-linx", spawners), "codex-linux");
  EXPECT_EQ(closest_name("defualt", {"default", "proxy", "real-host", "windows"}), "default");
}

TEST(ClosestName, NothingWhenNoNameIsNear) {
  EXPECT_EQ(closest_name("docker", {"none", "bwrap", "firejail"}), std::nullopt);
  EXPECT_EQ(closest_name("", {"none"}), std::nullopt);
  EXPECT_EQ(closest_name(std::string(10000, 'x'), {"none"}), std::nullopt);  // bounded work for any input
  EXPECT_EQ(closest_name("run", {}), std::nullopt);
}

TEST(DidYouMean, NamesTheNearestAndListsTheValidNames) {
  EXPECT_EQ(did_you_mean("bwarp", {"none", "bwrap", "firejail"}), "did you mean 'bwrap'? valid: none, bwrap, firejail");
  EXPECT_EQ(did_you_mean("docker", {"none", "bwrap"}), "valid: none, bwrap");
  EXPECT_EQ(did_you_mean("x", {}), "valid: (none found)");
}
