// results.sarif (SARIF 2.1.0): one rule per attempt, one result per finding; every string from the results is
// bounded and printable (printable_excerpt), since it came from the sandbox or from a results file given to us.
#include "harness/report/sarif.h"

#include <cctype>
#include <fstream>
#include <map>

#include "harness/core/error.h"
#include "harness/core/sha256.h"
#include "harness/core/text.h"
#include "harness/report/html_report.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

// The OASIS schema the file declares (the multitool and editors validate against it).
constexpr const char* kSchema = "https://json.schemastore.org/sarif-2.1.0.json";

// Bounded, printable text: control bytes and invalid UTF-8 become "\xNN" (as in every other report).
std::string clean(const std::string& s, std::size_t max_bytes) { return printable_excerpt(s, max_bytes); }

bool is_finding(Verdict v) { return v != Verdict::kPass && v != Verdict::kSkip; }

// SARIF §3.27.9/§3.27.10: an escape is an error; the other failing verdicts (overblock, broken,
// error) are warnings; a pass or a skip is no failure at all: level "none" with its own kind.
const char* level_of(Verdict v) {
  switch (v) {
    case Verdict::kEscape: return "error";
    case Verdict::kPass:
    case Verdict::kSkip: return "none";
    default: return "warning";
  }
}

const char* kind_of(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kSkip: return "notApplicable";
    default: return "fail";
  }
}

// "fs.write.create" -> "FsWriteCreate": SARIF's rule name is an identifier a reader understands (§3.49.7).
std::string rule_name(const std::string& id) {
  std::string name;
  bool upper = true;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      upper = true;
      continue;
    }
    name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return name.empty() ? "Attempt" : name;
}

nlohmann::json rule_json(const AttemptRecord& r) {
  const std::string title = clean(r.title, 500), description = clean(r.description, 2000);
  const std::string reference = clean(r.reference, 1000);
  nlohmann::json rule = {
      {"id", clean(r.attempt_id, 200)},
      {"name", rule_name(clean(r.attempt_id, 200))},
      {"shortDescription", {{"text", title.empty() ? clean(r.attempt_id, 200) : title}}},
      {"fullDescription", {{"text", description.empty() ? title : description}}},
      {"help", {{"text", description + (reference.empty() ? "" : "\nReference: " + reference) +
                             "\nClass: " + clean(r.klass, 100) + " (docs/scenarios.md)"}}},
      {"defaultConfiguration", {{"level", "error"}}},
      {"properties", {{"tags", {"security", "sandbox", clean(r.klass, 100)}}}}};
  if (const std::string uri = sarif_help_uri(r.reference); !uri.empty()) rule["helpUri"] = uri;
  return rule;
}

// What the terminal summary and the HTML report say of one execution, as plain text.
std::string message_text(const RunInfo& info, const AttemptRecord& r) {
  std::string text = to_string(r.verdict) + std::string(" ") + clean(r.id, 500) + ": " +
                     shorten(clean(r.reason, 2048), 300);
  if (!r.expected.empty())
    text += "\nExpected: " + clean(r.expected, 100) + " (" + shorten(clean(r.expected_why, 1024), 300) + ")";
  if (is_finding(r.verdict) && !r.evidence.empty())
    text += "\nEvidence (outside): " +
            clean(r.evidence.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 1024);
  text += "\nReproduce: " + clean(reproduce_command(info, r.id), 2048);
  return text;
}

nlohmann::json location_json(const AttemptRecord& r) {
  const std::string path = clean(r.source_file, 1024);
  const std::string uri = sarif_uri(path);
  nlohmann::json artifact = {{"uri", uri}};
  if (uri.rfind("file:", 0) != 0) artifact["uriBaseId"] = kSarifSrcRoot;
  nlohmann::json physical = {{"artifactLocation", artifact}};
  if (r.source_line > 0) physical["region"] = {{"startLine", r.source_line}};
  return nlohmann::json::array({{{"physicalLocation", physical}}});
}

nlohmann::json result_json(const RunInfo& info, const AttemptRecord& r, std::size_t rule_index,
                           const SarifOptions& options) {
  nlohmann::json result = {{"ruleId", clean(r.attempt_id, 200)},
                           {"ruleIndex", rule_index},
                           {"kind", kind_of(r.verdict)},
                           {"level", level_of(r.verdict)},
                           {"message", {{"text", message_text(info, r)}}},
                           {"partialFingerprints", {{kSarifFingerprintKey, sarif_fingerprint(r)}}},
                           {"properties",
                            {{"execution", clean(r.id, 500)},
                             {"verdict", to_string(r.verdict)},
                             {"class", clean(r.klass, 100)},
                             {"policy", clean(r.policy, 200)},
                             {"target", clean(r.target, 500)},
                             {"role", clean(r.role, 50)}}}};
  if (!r.source_file.empty()) result["locations"] = location_json(r);
  if (options.accepted.count(r.id))
    result["suppressions"] = nlohmann::json::array(
        {{{"kind", "external"},
          {"justification", "accepted by the baseline " + clean(options.baseline, 1024) + " with this verdict"}}});
  return result;
}

bool uri_unreserved(unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

// A URL in a reference: only characters RFC 3986 allows, cut before trailing punctuation of the prose.
std::string url_in(const std::string& text) {
  for (const char* scheme : {"https://", "http://"}) {
    const std::size_t at = text.find(scheme);
    if (at == std::string::npos) continue;
    static constexpr std::string_view kAllowed = "-._~:/?#[]@!$&'()*+,;=%";
    std::size_t end = at;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) ||
                                 kAllowed.find(text[end]) != std::string_view::npos))
      ++end;
    while (end > at && std::string_view(".,;:)'").find(text[end - 1]) != std::string_view::npos) --end;
    if (end - at > std::string_view(scheme).size() && end - at <= 2000) return text.substr(at, end - at);
  }
  return "";
}

// "CVE-2019-12439" (4-digit year, 4 to 7 digits), at a word boundary.
std::string cve_in(const std::string& text) {
  for (std::size_t at = text.find("CVE-"); at != std::string::npos; at = text.find("CVE-", at + 1)) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(text[at - 1]))) continue;
    std::size_t i = at + 4, year = 0, number = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && year < 5) ++i, ++year;
    if (year != 4 || i >= text.size() || text[i] != '-') continue;
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++number;
    if (number >= 4 && number <= 7) return text.substr(at, i - at);
  }
  return "";
}

// "GHSA-xxxx-xxxx-xxxx" (GitHub's advisory ids: three groups of four of [2-9cfghjmpqrvwx]).
std::string ghsa_in(const std::string& text) {
  for (std::size_t at = text.find("GHSA-"); at != std::string::npos; at = text.find("GHSA-", at + 1)) {
    if (at + 19 > text.size()) break;
    bool ok = true;
    for (std::size_t k = 0; k < 14 && ok; ++k) {
      const char c = text[at + 5 + k];
      ok = (k % 5 == 4) ? c == '-' : (std::isdigit(static_cast<unsigned char>(c)) || std::islower(static_cast<unsigned char>(c)));
    }
    if (ok) return text.substr(at, 19);
  }
  return "";
}

bool under(const fs::path& file, const fs::path& dir) {
  const fs::path rel = file.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

std::string sarif_fingerprint(const AttemptRecord& r) {
  // The execution's identity in the suite, nothing of where or when it ran; '\n' cannot occur in these fields
  // of a real run (ids are [A-Za-z0-9._-], targets a kind:spec), so the join is unambiguous.
  return sha256_hex(r.attempt_id + "\n" + r.policy + "\n" + r.target);
}

std::string sarif_help_uri(const std::string& reference) {
  // The earliest citation wins, so "CVE-A; GHSA-B" links CVE-A.
  const std::string cve = cve_in(reference), ghsa = ghsa_in(reference), url = url_in(reference);
  const std::size_t at_cve = cve.empty() ? std::string::npos : reference.find(cve);
  const std::size_t at_ghsa = ghsa.empty() ? std::string::npos : reference.find(ghsa);
  if (!cve.empty() && at_cve <= at_ghsa) return "https://www.cve.org/CVERecord?id=" + cve;
  if (!ghsa.empty()) return "https://github.com/advisories/" + ghsa;
  return url;
}

std::string sarif_uri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string p = path;
  for (char& c : p)
    if (c == '\\') c = '/';
  // "C:/x" (Windows) and "/x" are absolute: file:///C:/x, file:///x.
  const bool drive = p.size() >= 3 && std::isalpha(static_cast<unsigned char>(p[0])) && p[1] == ':' && p[2] == '/';
  const bool absolute = drive || (!p.empty() && p[0] == '/');
  std::string out = absolute ? (drive ? "file:///" : "file://") : "";
  for (std::size_t i = 0; i < p.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (uri_unreserved(c) || c == '/' || (drive && i == 1)) out += static_cast<char>(c);
    else out += std::string("%") + kHex[c >> 4] + kHex[c & 0xf];
  }
  return out;
}

std::string source_path(const fs::path& file, const fs::path& data_root, const fs::path& cwd) {
  std::error_code ec;
  const fs::path abs = fs::absolute(file, ec).lexically_normal();
  if (ec) return file.generic_string();
  for (const fs::path& base : {cwd, data_root}) {
    const fs::path b = fs::absolute(base, ec).lexically_normal();
    if (!ec && under(abs, b)) return abs.lexically_relative(b).generic_string();
  }
  return abs.generic_string();
}

nlohmann::json sarif_json(const RunInfo& info, const std::vector<AttemptRecord>& records, const SarifOptions& options) {
  nlohmann::json rules = nlohmann::json::array(), results = nlohmann::json::array();
  std::map<std::string, std::size_t> rule_index;  // attempt id -> index in rules
  for (const auto& r : records) {
    auto [it, added] = rule_index.emplace(r.attempt_id, rules.size());
    if (added) rules.push_back(rule_json(r));
    if (options.all || is_finding(r.verdict)) results.push_back(result_json(info, r, it->second, options));
  }
  const int exit_status = info.interrupted ? 130 : run_exit_status(records);
  nlohmann::json invocation = {{"executionSuccessful", !info.interrupted}, {"exitCode", exit_status}};
  if (const std::string line = interrupted_line(info, records.size()); !line.empty())
    invocation["toolExecutionNotifications"] = nlohmann::json::array(
        {{{"level", "error"}, {"message", {{"text", line + "; the rest did not run (SIGINT/SIGTERM)"}}}}});
  const std::string spawner = clean(info.spawner, 200), suite = clean(info.suite, 200);
  // No automationDetails: upload-sarif's category (default: workflow, job and matrix) keeps the analyses
  // of several jobs apart, and an id of ours would merge two jobs that test the same spawner and suite.
  nlohmann::json run = {
      {"tool",
       {{"driver",
         {{"name", "breakout"},
          {"version", clean(info.breakout_version, 100)},
          {"fullName", "breakout sandbox escape harness"},
          {"rules", rules}}}}},
      {"invocations", nlohmann::json::array({invocation})},
      {"results", results},
      {"properties",
       {{"run_id", clean(info.run_id, 200)},
        {"suite", suite},
        {"spawner", spawner},
        {"spawner_version", clean(info.spawner_version, 200)},
        {"platform", clean(info.platform, 100)},
        {"started", clean(info.started_utc, 100)},
        {"finished", clean(info.finished_utc, 100)},
        {"interrupted", info.interrupted},
        {"summary", count_verdicts(records)},
        {"results_include", options.all ? "every execution" : "findings only (escape, overblock, broken, error)"}}}};
  return {{"$schema", kSchema}, {"version", "2.1.0"}, {"runs", nlohmann::json::array({run})}};
}

void write_sarif(const fs::path& file, const RunInfo& info, const std::vector<AttemptRecord>& records,
                 const SarifOptions& options) {
  std::ofstream out(file, std::ios::binary);
  out << sarif_json(info, records, options).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  if (!out) throw Error("cannot write " + file.string());
}

}  // namespace breakout
