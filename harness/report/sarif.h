// results.sarif: a run as SARIF 2.1.0 (OASIS), for GitHub code scanning and other SARIF viewers (docs/results.md).
//
//   write_sarif(out_dir / "results.sarif", info, records, SarifOptions{});    // findings only
//   SarifOptions all; all.all = true;                                        // passes and skips too
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/attempt/record.h"
#include "harness/report/results.h"

namespace breakout {

struct SarifOptions {
  // Passes and skips too (`run/merge/report --sarif-all`): kind "pass" / "notApplicable", level "none"
  // (SARIF 2.1.0 §3.27.10: a result whose kind is not "fail" has level "none"). Default: findings only.
  bool all = false;
  // Execution ids an accepted baseline covers with their current verdict (`report --baseline`): their
  // results carry an external suppression naming `baseline`, so a viewer shows them as accepted.
  std::set<std::string> accepted;
  std::string baseline;
};

// The uriBaseId of relative locations: GitHub code scanning resolves it to the checkout's root.
inline constexpr const char* kSarifSrcRoot = "%SRCROOT%";
// The partialFingerprints key: a SHA-256 of attempt id, policy and target (nothing of one machine or run).
inline constexpr const char* kSarifFingerprintKey = "breakoutExecution/v1";

nlohmann::json sarif_json(const RunInfo& info, const std::vector<AttemptRecord>& records, const SarifOptions& options);

// Writes sarif_json() to `file`; throws Error when it cannot.
void write_sarif(const std::filesystem::path& file, const RunInfo& info, const std::vector<AttemptRecord>& records,
                 const SarifOptions& options);

// The fingerprint of one execution: stable across runs, machines, temp dirs and dates.
std::string sarif_fingerprint(const AttemptRecord& r);

// A CVE or GitHub advisory link for an attempt's reference (the first one it cites), else its first
// http(s) URL, else "" (no helpUri).
std::string sarif_help_uri(const std::string& reference);

// A file path as a URI reference (RFC 3986): a relative path percent-encoded, an absolute one as file:///.
std::string sarif_uri(const std::string& path);

// An attempts file as results.json records it: relative to `cwd` when it lies under it (a CI job runs
// from its checkout), else relative to `data_root` (breakout's data directory, the parent of --scenarios),
// else absolute; always with '/' separators.
std::string source_path(const std::filesystem::path& file, const std::filesystem::path& data_root,
                        const std::filesystem::path& cwd);

}  // namespace breakout
