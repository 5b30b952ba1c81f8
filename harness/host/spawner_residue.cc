// The spawner's residue as report lines and JSON (spawner_residue.h); the watching is platform code.
#include "harness/host/spawner_residue.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

namespace breakout {

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

constexpr std::size_t kExecutionsPerGroup = 5;

void add_to(std::vector<ResidueGroup>& groups, std::map<std::pair<std::string, std::string>, std::size_t>& at,
            const std::string& kind, const std::string& pattern, const std::string& execution, bool removed) {
  const auto [it, fresh] = at.emplace(std::make_pair(kind, pattern), groups.size());
  if (fresh) groups.push_back({kind, pattern, 0, 0, {}});
  ResidueGroup& g = groups[it->second];
  ++g.count;
  if (removed) ++g.removed;
  if (g.executions.size() < kExecutionsPerGroup &&
      (g.executions.empty() || g.executions.back() != execution))
    g.executions.push_back(execution);
}

}  // namespace

std::string residue_pattern(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    if (!is_alnum(name[i])) {
      out += name[i++];
      continue;
    }
    std::size_t j = i;
    bool digit = false, all_digits = true;
    for (; j < name.size() && is_alnum(name[j]); ++j) {
      digit = digit || is_digit(name[j]);
      all_digits = all_digits && is_digit(name[j]);
    }
    if (all_digits) {
      out += 'N';
    } else if (j - i >= 6 && digit) {
      out += '*';
    } else {
      out.append(name, i, j - i);
    }
    i = j;
  }
  return out;
}

std::vector<ResidueGroup> group_residue(const ResidueFindings& f) {
  std::vector<ResidueGroup> groups;
  std::map<std::pair<std::string, std::string>, std::size_t> at;
  for (const auto& file : f.files) add_to(groups, at, "file", residue_pattern(file.path), file.execution, file.removed);
  for (const auto& p : f.processes)
    add_to(groups, at, p.outside_box ? "process outside the box" : "process", residue_pattern(p.comm), p.execution, p.killed);
  return groups;
}

void merge_residue(ResidueFindings& into, const ResidueFindings& from) {
  if (into.unavailable.empty()) into.unavailable = from.unavailable;
  for (const auto& w : from.watched)
    if (std::find(into.watched.begin(), into.watched.end(), w) == into.watched.end()) into.watched.push_back(w);
  for (const auto& x : from.files)
    if (into.files.size() < kMaxResidueItems) into.files.push_back(x);
  for (const auto& p : from.processes)
    if (into.processes.size() < kMaxResidueItems) into.processes.push_back(p);
  into.subdirs_watched += from.subdirs_watched;
  into.files_total += from.files_total;
  into.processes_total += from.processes_total;
  into.unidentified += from.unidentified;
  into.overflowed = into.overflowed || from.overflowed;
}

std::vector<std::string> residue_lines(const ResidueFindings& f) {
  std::vector<std::string> out;
  if (!f.unavailable.empty()) return {"not watched: " + f.unavailable};
  for (const auto& g : group_residue(f)) {
    std::string line = std::to_string(g.count) + " x " + g.kind + " " + g.pattern + " (" +
                       (g.kind == "file" ? "removed " : "killed ") + std::to_string(g.removed) + "/" +
                       std::to_string(g.count) + "); from";
    for (std::size_t i = 0; i < g.executions.size(); ++i) line += (i ? ", " : " ") + g.executions[i];
    if (g.executions.size() < g.count) line += ", ...";
    out.push_back(std::move(line));
  }
  if (f.files_total > f.files.size() || f.processes_total > f.processes.size())
    out.push_back("listed " + std::to_string(f.files.size()) + " of " + std::to_string(f.files_total) + " entries and " +
                  std::to_string(f.processes.size()) + " of " + std::to_string(f.processes_total) + " processes");
  if (f.unidentified)
    out.push_back(std::to_string(f.unidentified) +
                  " entries were created by processes that exited before they could be identified (not charged, not removed)");
  if (f.overflowed) out.push_back("the kernel dropped events: the list may be incomplete");
  return out;
}

nlohmann::json residue_json(const ResidueFindings& f) {
  nlohmann::json j = {{"watched", f.watched},
                      {"subdirs_watched", f.subdirs_watched},
                      {"files_total", f.files_total},
                      {"processes_total", f.processes_total},
                      {"unidentified", f.unidentified},
                      {"overflowed", f.overflowed}};
  if (!f.unavailable.empty()) j["unavailable"] = f.unavailable;
  j["files"] = nlohmann::json::array();
  for (const auto& x : f.files)
    j["files"].push_back({{"path", x.path}, {"kind", x.kind}, {"creator", x.creator},
                          {"execution", x.execution}, {"removed", x.removed}});
  j["processes"] = nlohmann::json::array();
  for (const auto& p : f.processes)
    j["processes"].push_back({{"comm", p.comm}, {"pid", p.pid}, {"execution", p.execution},
                              {"probes_alive", p.probes_alive}, {"outside_box", p.outside_box}, {"killed", p.killed}});
  return j;
}

ResidueFindings residue_from_json(const nlohmann::json& j) {
  ResidueFindings f;
  if (!j.is_object()) return f;
  f.unavailable = j.value("unavailable", "");
  if (j.contains("watched") && j["watched"].is_array())
    for (const auto& w : j["watched"])
      if (w.is_string()) f.watched.push_back(w.get<std::string>());
  f.subdirs_watched = j.value("subdirs_watched", std::size_t{0});
  f.files_total = j.value("files_total", std::size_t{0});
  f.processes_total = j.value("processes_total", std::size_t{0});
  f.unidentified = j.value("unidentified", std::size_t{0});
  f.overflowed = j.value("overflowed", false);
  if (j.contains("files") && j["files"].is_array())
    for (const auto& x : j["files"])
      if (x.is_object())
        f.files.push_back({x.value("path", ""), x.value("kind", ""), x.value("creator", ""),
                           x.value("execution", ""), x.value("removed", false)});
  if (j.contains("processes") && j["processes"].is_array())
    for (const auto& p : j["processes"])
      if (p.is_object())
        f.processes.push_back({p.value("comm", ""), p.value("pid", 0), p.value("execution", ""),
                               p.value("probes_alive", 0), p.value("outside_box", false), p.value("killed", false)});
  return f;
}

}  // namespace breakout
