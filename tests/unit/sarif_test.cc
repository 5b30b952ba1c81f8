// results.sarif: levels and kinds per verdict, fingerprints that ignore where and when a run happened,
// hostile text kept printable and bounded, the --sarif-all flag, locations and help links.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/model/scenario.h"
#include "harness/report/results_io.h"
#include "harness/report/sarif.h"

using namespace breakout;
namespace fs = std::filesystem;

namespace {

AttemptRecord record(const std::string& attempt, const std::string& target, Verdict v) {
  AttemptRecord r;
  r.attempt_id = attempt;
  r.policy = "workspace-write";
  r.target = target;
  r.id = attempt + "@" + r.policy + (target.empty() ? "" : "[" + target + "]");
  r.group = attempt + "@" + r.policy;
  r.title = "Create a new file";
  r.description = "O_CREAT|O_EXCL of a new file.";
  r.reference = "catalog §1";
  r.klass = "fs-write";
  r.role = "deny";
  r.expected = "denied";
  r.verdict = v;
  r.reason = "created " + target;
  r.source_file = "scenarios/attempts/fs_write.toml";
  r.source_line = 5;
  return r;
}

// One synthetic run of the same suite: what differs between two runs is everything but the suite.
std::pair<RunInfo, std::vector<AttemptRecord>> synthetic_run(const std::string& run_id, const std::string& tmp,
                                                             const std::string& date) {
  RunInfo info;
  info.run_id = run_id;
  info.suite = "default";
  info.spawner = "none";
  info.started_utc = date;
  info.host = "host-" + run_id;
  std::vector<AttemptRecord> records = {record("fs.write.create", "fs:sibling/new-file", Verdict::kEscape),
                                        record("fs.write.create", "fs:parent/new-file", Verdict::kEscape),
                                        record("net.connect", "net:tcp4-loopback", Verdict::kOverblock)};
  for (auto& r : records) {
    r.evidence = {{"changes_outside_writable_roots", {tmp + "/sibling/new-file"}}, {"nonce", run_id}};
    r.spawner_argv = {tmp + "/probe", "--path", tmp + "/sibling/new-file"};
    r.duration_ms = static_cast<double>(run_id.size());
  }
  return {info, records};
}

const nlohmann::json& only_run(const nlohmann::json& log) { return log.at("runs").at(0); }

}  // namespace

TEST(Sarif, LevelsPerVerdict) {
  RunInfo info;
  std::vector<AttemptRecord> records;
  for (Verdict v : {Verdict::kEscape, Verdict::kOverblock, Verdict::kBroken, Verdict::kError, Verdict::kPass,
                    Verdict::kSkip})
    records.push_back(record(std::string("a.") + to_string(v), "fs:sibling/x", v));
  const auto run = only_run(sarif_json(info, records, SarifOptions{}));
  ASSERT_EQ(run.at("results").size(), 4u);  // findings only by default
  std::map<std::string, std::pair<std::string, std::string>> seen;
  for (const auto& r : run.at("results"))
    seen[r.at("properties").at("verdict").get<std::string>()] = {r.at("level").get<std::string>(),
                                                                 r.at("kind").get<std::string>()};
  EXPECT_EQ(seen.at("escape"), std::make_pair(std::string("error"), std::string("fail")));
  for (const char* v : {"overblock", "broken", "error"})
    EXPECT_EQ(seen.at(v), std::make_pair(std::string("warning"), std::string("fail"))) << v;
  EXPECT_EQ(run.at("tool").at("driver").at("rules").size(), 6u);  // a rule per attempt, shown or not
}

TEST(Sarif, PassesAndSkipsOnlyWithTheFlag) {
  RunInfo info;
  const std::vector<AttemptRecord> records = {record("a.pass", "fs:workspace/x", Verdict::kPass),
                                              record("a.skip", "fs:sibling/x", Verdict::kSkip),
                                              record("a.esc", "fs:sibling/x", Verdict::kEscape)};
  EXPECT_EQ(only_run(sarif_json(info, records, SarifOptions{})).at("results").size(), 1u);
  SarifOptions all;
  all.all = true;
  const auto results = only_run(sarif_json(info, records, all)).at("results");
  ASSERT_EQ(results.size(), 3u);
  // SARIF 2.1.0 §3.27.10: a kind other than "fail" has level "none".
  EXPECT_EQ(results.at(0).at("kind"), "pass");
  EXPECT_EQ(results.at(0).at("level"), "none");
  EXPECT_EQ(results.at(1).at("kind"), "notApplicable");
  EXPECT_EQ(results.at(1).at("level"), "none");
  EXPECT_EQ(results.at(2).at("level"), "error");
}

TEST(Sarif, FingerprintsStableAcrossRunsTempDirsAndDates) {
  const auto [info1, run1] = synthetic_run("20260101T000000Z-aaaaaa", "/tmp/breakout-1111/tree", "2026-01-01T00:00:00Z");
  const auto [info2, run2] = synthetic_run("20271231T235959Z-bbbbbb", "/var/tmp/xyz-2222/other", "2027-12-31T23:59:59Z");
  const auto a = only_run(sarif_json(info1, run1, SarifOptions{})).at("results");
  const auto b = only_run(sarif_json(info2, run2, SarifOptions{})).at("results");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  std::set<std::string> distinct;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto& fa = a[i].at("partialFingerprints");
    EXPECT_EQ(fa, b[i].at("partialFingerprints")) << i;
    EXPECT_NE(a[i].at("message"), b[i].at("message"));  // the runs did differ (evidence, nonce)
    distinct.insert(fa.at(kSarifFingerprintKey).get<std::string>());
  }
  EXPECT_EQ(distinct.size(), 3u);  // and each execution has its own
  // Another policy or target is another finding.
  AttemptRecord other = run1[0];
  other.policy = "read-only";
  EXPECT_NE(sarif_fingerprint(other), sarif_fingerprint(run1[0]));
}

TEST(Sarif, ControlCharactersAreEscapedAndTextBounded) {
  AttemptRecord r = record("x", "fs:sibling/a", Verdict::kEscape);
  r.reason = std::string("\x1b]8;;http://evil\x07" "click\x1b[2J\xff\xfe") + '\0' + "end";
  r.evidence = {{"stdout", std::string(100000, 'A') + "\x1b[31m"}};
  r.title = std::string("t\r\nitle\x1b");
  RunInfo info;
  // What a viewer shows: the parsed strings, with no escape sequence, CR or other control byte left in.
  const auto printable = [](const std::string& s) {
    for (char c : s) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (!((u >= 0x20 && u < 0x7f) || c == '\n' || c == '\t')) return false;
    }
    return true;
  };
  const auto log = sarif_json(info, {r}, SarifOptions{});
  EXPECT_TRUE(printable(only_run(log).at("results").at(0).at("message").at("text")));
  const auto& rule = only_run(log).at("tool").at("driver").at("rules").at(0);
  EXPECT_TRUE(printable(rule.at("shortDescription").at("text")));
  EXPECT_TRUE(printable(rule.at("help").at("text")));
  const auto result = only_run(sarif_json(info, {r}, SarifOptions{})).at("results").at(0);
  const std::string message = result.at("message").at("text");
  EXPECT_NE(message.find("\\x1b]8;;http://evil\\x07click"), std::string::npos) << message;
  EXPECT_LT(message.size(), 6000u);  // 100 kB of evidence is an excerpt
  EXPECT_NE(message.find("more bytes]"), std::string::npos);
  EXPECT_NE(message.find("Reproduce: breakout run --spawner"), std::string::npos);
}

TEST(Sarif, LocationIsTheAttemptsFileAndLine) {
  RunInfo info;
  AttemptRecord r = record("fs.write.create", "fs:sibling/a", Verdict::kEscape);
  r.source_file = "scenarios/attempts/my file.toml";
  const auto loc = only_run(sarif_json(info, {r}, SarifOptions{})).at("results").at(0).at("locations").at(0);
  EXPECT_EQ(loc.at("physicalLocation").at("artifactLocation").at("uri"), "scenarios/attempts/my%20file.toml");
  EXPECT_EQ(loc.at("physicalLocation").at("artifactLocation").at("uriBaseId"), kSarifSrcRoot);
  EXPECT_EQ(loc.at("physicalLocation").at("region").at("startLine"), 5);
  EXPECT_EQ(sarif_uri("/opt/x y/a.toml"), "file:///opt/x%20y/a.toml");
  EXPECT_EQ(sarif_uri("C:\\b\\a.toml"), "file:///C:/b/a.toml");
  EXPECT_EQ(source_path("/data/scenarios/attempts/a.toml", "/data", "/elsewhere"), "scenarios/attempts/a.toml");
  EXPECT_EQ(source_path("/repo/suite/a.toml", "/data", "/repo"), "suite/a.toml");
  EXPECT_EQ(source_path("/other/a.toml", "/data", "/repo"), "/other/a.toml");
}

TEST(Sarif, AttemptLinesComeFromTheScenarioFile) {
  const auto attempts = parse_attempts_text(R"(# two attempts

[[attempt]]
id = "a.one"
title = "t"
description = "d"
reference = "r"
platforms = ["linux"]
class = "fs-write"
probe = "fs-write"
args = ["--op", "create", "--path", "{target}"]
targets = ["fs:workspace/new-file", "fs:sibling/new-file"]

[[attempt]]
id = "a.two"
title = "t"
description = "d"
reference = "r"
platforms = ["linux"]
class = "fs-write"
probe = "fs-write"
args = ["--op", "create", "--path", "{target}"]
targets = ["fs:workspace/new-file", "fs:sibling/new-file"]
)", "x.toml");
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].line, 3);
  EXPECT_EQ(attempts[1].line, 14);
  EXPECT_EQ(attempts[1].file, "x.toml");
}

TEST(Sarif, HelpUriFromTheReference) {
  EXPECT_EQ(sarif_help_uri("bubblewrap CVE-2019-12439; catalog §1"), "https://www.cve.org/CVERecord?id=CVE-2019-12439");
  EXPECT_EQ(sarif_help_uri("GHSA-abcd-2345-wxyz and CVE-2024-21626"), "https://github.com/advisories/GHSA-abcd-2345-wxyz");
  EXPECT_EQ(sarif_help_uri("see https://example.org/a(b). done"), "https://example.org/a(b");
  EXPECT_EQ(sarif_help_uri("catalog §1; CVE-24-1"), "");
  RunInfo info;
  AttemptRecord r = record("x", "fs:sibling/a", Verdict::kEscape);
  r.reference = "CVE-2025-59532 (Codex CLI)";
  const auto rule = only_run(sarif_json(info, {r}, SarifOptions{})).at("tool").at("driver").at("rules").at(0);
  EXPECT_EQ(rule.at("helpUri"), "https://www.cve.org/CVERecord?id=CVE-2025-59532");
  EXPECT_EQ(rule.at("id"), "x");
  EXPECT_NE(rule.at("help").at("text").get<std::string>().find("CVE-2025-59532 (Codex CLI)"), std::string::npos);
}

TEST(Sarif, BaselineAcceptedFindingsAreSuppressed) {
  RunInfo info;
  const std::vector<AttemptRecord> records = {record("a", "fs:sibling/x", Verdict::kEscape),
                                              record("b", "fs:sibling/x", Verdict::kEscape)};
  SarifOptions o;
  o.accepted = {records[0].id};
  o.baseline = "ci/baselines/linux.json";
  const auto results = only_run(sarif_json(info, records, o)).at("results");
  EXPECT_EQ(results.at(0).at("suppressions").at(0).at("kind"), "external");
  EXPECT_FALSE(results.at(1).contains("suppressions"));
}

TEST(Sarif, SourceSurvivesResultsJson) {
  RunInfo info;
  const auto back = results_from_json(results_json(info, {record("a", "fs:sibling/x", Verdict::kEscape)}));
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(back.records[0].source_file, "scenarios/attempts/fs_write.toml");
  EXPECT_EQ(back.records[0].source_line, 5);
}
