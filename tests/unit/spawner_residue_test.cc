// The spawner's residue as the report shows it: name patterns, grouping, lines, JSON and merging.
#include "harness/host/spawner_residue.h"

#include <gtest/gtest.h>

namespace breakout {
namespace {

ResidueFindings srt_like() {
  ResidueFindings f;
  f.watched = {"/tmp", "/dev/shm", "/run"};
  f.files = {{"/tmp/claude-http-1a2b3c4d5e.sock", "socket", "node", "a0001", true},
             {"/tmp/claude-http-9f8e7d6c5b.sock", "socket", "node", "a0002", true},
             {"/tmp/srt-mux-12345.sock", "socket", "node", "a0002", false}};
  f.processes = {{"socat", 4242, "a0001", 0, false, true}, {"socat", 4343, "a0002", 1, true, true}};
  f.files_total = 3;
  f.processes_total = 2;
  return f;
}

TEST(ResiduePattern, NumbersAndTokensBecomeWildcards) {
  EXPECT_EQ(residue_pattern("/tmp/claude-http-1a2b3c4d5e.sock"), "/tmp/claude-http-*.sock");
  EXPECT_EQ(residue_pattern("/tmp/srt-mux-12345.sock"), "/tmp/srt-mux-N.sock");
  EXPECT_EQ(residue_pattern("/tmp/codex-daemon-0"), "/tmp/codex-daemon-N");
  // Words, and short tokens with digits (x86), are kept: they are what names the tool.
  EXPECT_EQ(residue_pattern("/run/firejail/x86"), "/run/firejail/x86");
  EXPECT_EQ(residue_pattern("socat"), "socat");
}

TEST(ResidueGroups, SameShapeIsOneGroupWithItsExecutions) {
  const auto groups = group_residue(srt_like());
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].kind, "file");
  EXPECT_EQ(groups[0].pattern, "/tmp/claude-http-*.sock");
  EXPECT_EQ(groups[0].count, 2u);
  EXPECT_EQ(groups[0].removed, 2u);
  EXPECT_EQ(groups[0].executions, (std::vector<std::string>{"a0001", "a0002"}));
  EXPECT_EQ(groups[1].pattern, "/tmp/srt-mux-N.sock");
  EXPECT_EQ(groups[1].removed, 0u);
  EXPECT_EQ(groups[2].kind, "process");
  EXPECT_EQ(groups[3].kind, "process outside the box");
}

TEST(ResidueLines, OneLinePerGroupAndWhatLimitsTheWatch) {
  auto f = srt_like();
  auto lines = residue_lines(f);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "2 x file /tmp/claude-http-*.sock (removed 2/2); from a0001, a0002");
  EXPECT_EQ(lines[3], "1 x process outside the box socat (killed 1/1); from a0002");

  f.files_total = 700;
  f.unidentified = 3;
  f.overflowed = true;
  lines = residue_lines(f);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_NE(lines[4].find("listed 3 of 700 entries"), std::string::npos);
  EXPECT_NE(lines[5].find("3 entries were created by processes that exited"), std::string::npos);
  EXPECT_NE(lines[6].find("dropped events"), std::string::npos);

  EXPECT_TRUE(residue_lines(ResidueFindings{}).empty());  // watched, found nothing
  ResidueFindings off;
  off.unavailable = "fanotify needs CAP_SYS_ADMIN";
  EXPECT_EQ(residue_lines(off), std::vector<std::string>{"not watched: fanotify needs CAP_SYS_ADMIN"});
}

TEST(ResidueJson, RoundTripsAndToleratesMissingFields) {
  const auto f = srt_like();
  const auto back = residue_from_json(residue_json(f));
  EXPECT_EQ(back.watched, f.watched);
  ASSERT_EQ(back.files.size(), 3u);
  EXPECT_EQ(back.files[0].path, f.files[0].path);
  EXPECT_EQ(back.files[0].kind, "socket");
  EXPECT_EQ(back.files[0].creator, "node");
  EXPECT_TRUE(back.files[0].removed);
  EXPECT_FALSE(back.files[2].removed);
  ASSERT_EQ(back.processes.size(), 2u);
  EXPECT_EQ(back.processes[1].pid, 4343);
  EXPECT_EQ(back.processes[1].probes_alive, 1);
  EXPECT_TRUE(back.processes[1].outside_box);
  EXPECT_EQ(back.files_total, 3u);

  const auto empty = residue_from_json(nlohmann::json::object());
  EXPECT_TRUE(empty.files.empty());
  EXPECT_TRUE(empty.unavailable.empty());
  EXPECT_TRUE(residue_from_json(nlohmann::json("not an object")).files.empty());
}

TEST(ResidueMerge, SumsShardsAndKeepsTheFirstReasonNotWatched) {
  ResidueFindings all = srt_like();
  ResidueFindings shard = srt_like();
  shard.unidentified = 2;
  merge_residue(all, shard);
  EXPECT_EQ(all.files.size(), 6u);
  EXPECT_EQ(all.files_total, 6u);
  EXPECT_EQ(all.processes_total, 4u);
  EXPECT_EQ(all.unidentified, 2u);
  EXPECT_EQ(all.watched.size(), 3u);  // the same directories, not listed twice

  ResidueFindings blind;
  blind.unavailable = "not implemented on Windows";
  merge_residue(all, blind);
  EXPECT_EQ(all.unavailable, "not implemented on Windows");

  ResidueFindings capped;
  for (std::size_t i = 0; i < kMaxResidueItems + 10; ++i) capped.files.push_back({"/tmp/x", "file", "sh", "a1", true});
  ResidueFindings into;
  merge_residue(into, capped);
  EXPECT_EQ(into.files.size(), kMaxResidueItems);
}

}  // namespace
}  // namespace breakout
