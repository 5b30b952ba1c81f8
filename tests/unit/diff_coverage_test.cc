// The gate's lost-coverage rules (harness/report/coverage.h, diff.cc): each case fails with 5, a new
// escape's 4 wins, nothing changed passes; baselines record what they describe and refuse the rest.
#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/report/diff.h"
#include "tests/unit/error_code.h"

using namespace breakout;
using breakout::test_util::code_of;

namespace {

AttemptRecord rec(const std::string& id, Verdict v) {
  AttemptRecord r;
  r.id = id;
  r.group = id.substr(0, id.find('['));
  r.verdict = v;
  r.reason = "because";
  return r;
}

Results run(std::vector<AttemptRecord> recs) {
  Results r;
  r.info.run_id = "r";
  r.info.suite = "default";
  r.info.spawner = "bwrap";
  r.info.spawner_version = "bubblewrap 0.8.0";
  r.info.platform = "linux";
  r.info.policies = {"workspace-write", "read-only"};
  r.records = std::move(recs);
  return r;
}

Results base_run() {
  return run({rec("a@p[1]", Verdict::kPass), rec("b@p[1]", Verdict::kPass), rec("c@p[1]", Verdict::kEscape),
              rec("d@p[1]", Verdict::kSkip)});
}

bool mentions(const Diff& d, const std::string& what) {
  for (const auto& r : d.lost_coverage)
    if (r.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(DiffCoverage, NothingChangedPasses) {
  const Diff d = diff_runs(base_run(), base_run());
  EXPECT_EQ(d.gate_status(), 0);
  EXPECT_TRUE(d.lost_coverage.empty());
  EXPECT_TRUE(d.lost.empty());
  EXPECT_EQ(diff_baseline(baseline_json(base_run()), base_run(), "b.json").gate_status(), 0);
}

TEST(DiffCoverage, PassThatSkipsErrsOrGoesMissingIsLost) {
  for (const Verdict after : {Verdict::kSkip, Verdict::kError}) {
    auto now = base_run();
    now.records[0].verdict = after;
    const Diff d = diff_runs(base_run(), now);
    EXPECT_EQ(d.gate_status(), kExitLostCoverage) << to_string(after);
    ASSERT_EQ(d.lost.size(), 1u);
    EXPECT_EQ(d.lost[0].id, "a@p[1]");
    EXPECT_EQ(d.lost[0].after, to_string(after));
  }
  auto now = base_run();
  now.records.erase(now.records.begin() + 1);  // b@p[1] missing
  const Diff d = diff_runs(base_run(), now);
  EXPECT_EQ(d.gate_status(), kExitLostCoverage);
  ASSERT_EQ(d.lost.size(), 1u);
  EXPECT_EQ(d.lost[0].id, "b@p[1]");
  EXPECT_TRUE(mentions(d, "1 missing"));
}

TEST(DiffCoverage, AnEscapeThatSkipsIsLostNotFixed) {
  auto now = base_run();
  now.records[2].verdict = Verdict::kSkip;
  const Diff d = diff_runs(base_run(), now);
  EXPECT_TRUE(d.fixed_escapes.empty());
  EXPECT_EQ(d.gate_status(), kExitLostCoverage);
  now.records[2].verdict = Verdict::kPass;  // really fixed
  EXPECT_EQ(diff_runs(base_run(), now).fixed_escapes.size(), 1u);
  EXPECT_EQ(diff_runs(base_run(), now).gate_status(), 0);
}

TEST(DiffCoverage, ASkipThatStaysOrGoesIsNoLoss) {
  auto now = base_run();
  now.records.pop_back();  // d@p[1] was skip
  EXPECT_EQ(diff_runs(base_run(), now).gate_status(), 0);
}

TEST(DiffCoverage, IdentityChangesFailUnlessAllowed) {
  struct Case {
    const char* field;
    void (*change)(RunInfo&);
  };
  const Case cases[] = {
      {"spawner", [](RunInfo& i) { i.spawner = "firejail"; }},
      {"version", [](RunInfo& i) { i.spawner_version = "bubblewrap 0.9.0"; }},
      {"suite", [](RunInfo& i) { i.suite = "network"; }},
      {"policies", [](RunInfo& i) { i.policies = {"workspace-write"}; }},
      {"platform", [](RunInfo& i) { i.platform = "windows"; }},
  };
  for (const auto& c : cases) {
    auto now = base_run();
    c.change(now.info);
    Diff d = diff_runs(base_run(), now);
    EXPECT_EQ(d.gate_status(), kExitLostCoverage) << c.field;
    ASSERT_EQ(d.lost_coverage.size(), 1u) << c.field;
    EXPECT_NE(d.lost_coverage[0].find("--allow-change " + std::string(c.field)), std::string::npos);
    d = diff_runs(base_run(), now, {parse_allowed_changes({c.field})});
    EXPECT_EQ(d.gate_status(), 0) << c.field;
    ASSERT_EQ(d.notes.size(), 1u) << c.field;
    // Against a baseline of the base run: the same refusal.
    EXPECT_EQ(diff_baseline(baseline_json(base_run()), now, "b.json").gate_status(), kExitLostCoverage) << c.field;
    EXPECT_EQ(diff_baseline(baseline_json(base_run()), now, "b.json", {parse_allowed_changes({c.field})}).gate_status(), 0)
        << c.field;
  }
  auto same_set = base_run();
  same_set.info.policies = {"read-only", "workspace-write"};  // order is no change
  EXPECT_EQ(diff_runs(base_run(), same_set).gate_status(), 0);
  EXPECT_EQ(code_of([] { parse_allowed_changes({"kernel"}); }), "bad-allow-change");
}

TEST(DiffCoverage, NothingJudgedInNewFails) {
  auto empty = base_run();
  empty.records.clear();
  EXPECT_EQ(diff_runs(empty, empty).gate_status(), kExitLostCoverage);
  EXPECT_TRUE(mentions(diff_runs(empty, empty), "no executions"));
  auto skips = run({rec("a@p[1]", Verdict::kSkip), rec("x@p[1]", Verdict::kError)});
  const Diff d = diff_runs(skips, skips);
  EXPECT_EQ(d.gate_status(), kExitLostCoverage);
  EXPECT_TRUE(mentions(d, "nothing was judged"));
  EXPECT_EQ(diff_baseline(baseline_json(skips), skips, "b.json").gate_status(), kExitLostCoverage);
}

TEST(DiffCoverage, InterruptedBaseIsRefusedAndInterruptedNewIsLost) {
  auto interrupted = base_run();
  interrupted.interrupted = true;
  EXPECT_EQ(code_of([&] { diff_runs(interrupted, base_run()); }), "interrupted-base");
  EXPECT_EQ(code_of([&] { baseline_json(interrupted); }), "interrupted-base");
  const Diff d = diff_runs(base_run(), interrupted);
  EXPECT_EQ(d.gate_status(), kExitLostCoverage);
  EXPECT_TRUE(mentions(d, "interrupted"));
  EXPECT_EQ(diff_baseline(baseline_json(base_run()), interrupted, "b.json").gate_status(), kExitLostCoverage);
}

TEST(DiffCoverage, NewEscapeWinsAndBothReasonsAreKept) {
  auto now = base_run();
  now.records[0].verdict = Verdict::kEscape;
  now.records[1].verdict = Verdict::kSkip;
  const Diff d = diff_runs(base_run(), now);
  EXPECT_EQ(d.gate_status(), kDiffGateFails);
  EXPECT_EQ(d.new_escapes.size(), 1u);
  EXPECT_EQ(d.lost.size(), 1u);
  EXPECT_FALSE(d.lost_coverage.empty());
  // Lost coverage wins over a new failing verdict that is not an escape.
  now.records[0].verdict = Verdict::kOverblock;
  EXPECT_EQ(diff_runs(base_run(), now).gate_status(), kExitLostCoverage);
}

TEST(DiffCoverage, BaselineRecordsWhatItDescribes) {
  auto r = base_run();
  r.info.commit = "6cc8117a5605";
  const auto b = baseline_json(r);
  EXPECT_EQ(b["spawner"], "bwrap");
  EXPECT_EQ(b["spawner_version"], "bubblewrap 0.8.0");
  EXPECT_EQ(b["suite"], "default");
  EXPECT_EQ(b["platform"], "linux");
  EXPECT_EQ(b["commit"], "6cc8117a5605");
  EXPECT_EQ(b["policies"].size(), 2u);
  EXPECT_EQ(b["counts"]["pass"], 2);
  EXPECT_EQ(b["counts"]["escape"], 1);
  EXPECT_EQ(b["counts"]["skip"], 1);
  EXPECT_EQ(b["passed"], nlohmann::json({"a@p[1]", "b@p[1]"}));
  EXPECT_EQ(b["accepted"].size(), 1u);
  EXPECT_FALSE(baseline_predates_coverage(b));
}

TEST(DiffCoverage, BaselineSeesAPassThatIsNoLongerJudged) {
  const auto b = baseline_json(base_run());
  auto now = base_run();
  now.records[0].verdict = Verdict::kSkip;   // a passed execution skips
  now.records.erase(now.records.begin() + 2);  // the accepted escape is gone
  const Diff d = diff_baseline(b, now, "b.json");
  EXPECT_EQ(d.gate_status(), kExitLostCoverage);
  ASSERT_EQ(d.lost.size(), 2u);
  EXPECT_EQ(d.lost[0].id, "a@p[1]");
  EXPECT_EQ(d.lost[1].id, "c@p[1]");
  // A skip the baseline recorded as a skip is no change at all.
  EXPECT_TRUE(diff_baseline(b, base_run(), "b.json").changed.empty());
}

TEST(DiffCoverage, OldBaselineIsAcceptedWithANote) {
  const nlohmann::json old = {{"schema", "breakout.baseline/1"},
                              {"suite", "default"},
                              {"spawner", "bwrap"},
                              {"accepted", {{{"id", "c@p[1]"}, {"verdict", "escape"}, {"reason", "known"}}}}};
  ASSERT_TRUE(baseline_predates_coverage(old));
  Diff d = diff_baseline(old, base_run(), "old.json");
  EXPECT_EQ(d.gate_status(), 0);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("predates"), std::string::npos);
  // What it does record is still checked.
  auto other = base_run();
  other.info.spawner = "firejail";
  EXPECT_EQ(diff_baseline(old, other, "old.json").gate_status(), kExitLostCoverage);
  // A bare baseline (schema and accepted only) checks no identity, but still needs something judged.
  const nlohmann::json bare = {{"schema", "breakout.baseline/1"}, {"accepted", nlohmann::json::array()}};
  other.records.erase(other.records.begin() + 2);  // the escape the bare baseline does not accept
  EXPECT_EQ(diff_baseline(bare, other, "bare.json").gate_status(), 0);
  auto skips = run({rec("a@p[1]", Verdict::kSkip)});
  EXPECT_EQ(diff_baseline(bare, skips, "bare.json").gate_status(), kExitLostCoverage);
}

TEST(RunStatus, NothingJudgedIsFive) {
  EXPECT_EQ(run_exit_status({}), kExitLostCoverage);
  EXPECT_EQ(run_exit_status({rec("a", Verdict::kSkip), rec("b", Verdict::kSkip)}), kExitLostCoverage);
  EXPECT_TRUE(all_skipped_reason({rec("a", Verdict::kSkip)}).has_value());
  EXPECT_EQ(run_exit_status({rec("a", Verdict::kSkip), rec("b", Verdict::kPass)}), 0);
  EXPECT_EQ(run_exit_status({rec("a", Verdict::kSkip), rec("b", Verdict::kError)}), 1);
  EXPECT_FALSE(all_skipped_reason({rec("a", Verdict::kSkip), rec("b", Verdict::kError)}).has_value());
}

TEST(ResultsIo, InterruptedIsReadFromTheTopLevel) {
  auto j = results_json(base_run().info, base_run().records);
  EXPECT_FALSE(results_from_json(j).interrupted);
  j["interrupted"] = true;
  EXPECT_TRUE(results_from_json(j).interrupted);
}
