// Lost-coverage rules: identity of a run, what --allow-change may waive, and "nothing was judged".
#include "harness/report/coverage.h"

#include <algorithm>

#include "harness/core/error.h"
#include "harness/core/text.h"

namespace breakout {

namespace {

std::string shown(const std::string& s) { return s.empty() ? "(none recorded)" : "'" + printable_excerpt(s, 200) + "'"; }

std::string shown(const std::vector<std::string>& v) {
  if (v.empty()) return "(none recorded)";
  std::string out;
  for (const auto& p : std::set<std::string>(v.begin(), v.end())) out += (out.empty() ? "" : ", ") + printable_excerpt(p, 100);
  return "{" + out + "}";
}

}  // namespace

RunIdentity identity_of(const RunInfo& info) {
  return {info.spawner, info.spawner_version, info.suite, info.platform, info.policies};
}

AllowedChanges parse_allowed_changes(const std::vector<std::string>& names) {
  static const AllowedChanges kFields = {"spawner", "version", "suite", "policies", "platform"};
  AllowedChanges a;
  for (const auto& n : names) {
    if (!kFields.count(n))
      throw Error("bad-allow-change", "--allow-change takes spawner, version, suite, policies or platform "
                                      "(comma-separated), not '" + printable_excerpt(n, 100) + "'");
    a.insert(n);
  }
  return a;
}

std::vector<IdentityChange> identity_changes(const RunIdentity& base, const RunIdentity& now,
                                             const std::string& base_word, bool base_records_everything) {
  std::vector<IdentityChange> out;
  auto add = [&](const char* field, const char* what, const std::string& b, const std::string& n) {
    out.push_back({field, std::string("the ") + what + " differs: " + b + " in " + base_word + ", " + n + " in NEW"});
  };
  auto differs = [&](const std::string& b, const std::string& n) {
    return base_records_everything ? b != n : !b.empty() && b != n;
  };
  if (differs(base.spawner, now.spawner)) add("spawner", "spawner", shown(base.spawner), shown(now.spawner));
  if (base_records_everything && base.spawner == now.spawner && base.version != now.version)
    add("version", "spawner version", shown(base.version), shown(now.version));
  if (differs(base.suite, now.suite)) add("suite", "suite", shown(base.suite), shown(now.suite));
  if (!base_records_everything) return out;
  if (std::set<std::string>(base.policies.begin(), base.policies.end()) !=
      std::set<std::string>(now.policies.begin(), now.policies.end()))
    add("policies", "policy set", shown(base.policies), shown(now.policies));
  if (base.platform != now.platform) add("platform", "platform", shown(base.platform), shown(now.platform));
  return out;
}

bool judged(const std::string& verdict) {
  return verdict == "pass" || verdict == "escape" || verdict == "overblock" || verdict == "broken";
}

std::optional<std::string> nothing_judged_reason(const std::vector<AttemptRecord>& records) {
  if (records.empty()) return "nothing was judged in NEW: it has no executions";
  if (std::any_of(records.begin(), records.end(), [](const AttemptRecord& r) { return judged(to_string(r.verdict)); }))
    return std::nullopt;
  const auto skipped = std::count_if(records.begin(), records.end(),
                                     [](const AttemptRecord& r) { return r.verdict == Verdict::kSkip; });
  return "nothing was judged in NEW: of its " + std::to_string(records.size()) + " executions " +
         std::to_string(skipped) + " skipped and " + std::to_string(records.size() - skipped) +
         " ended in error; none is pass, escape, overblock or broken";
}

}  // namespace breakout
