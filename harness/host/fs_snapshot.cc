// Portable part of the file-system sensor: walking a tree into a Snapshot and diffing two of them.
// (stat_path, the per-entry part, is per platform: platform/<os>/fs_stat.cc.)
#include "harness/host/fs_snapshot.h"

#include <algorithm>
#include <set>
#include <system_error>
#include <utility>

#include "harness/core/error.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

// Absolute, lexically normal, no trailing separator: the form excludes are compared in.
fs::path normalized(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  abs = abs.lexically_normal();
  if (!abs.has_filename() && abs != abs.root_path()) abs = abs.parent_path();
  return abs;
}

// Entries we could not look at get a marker in `digest` (dirs and special files
// otherwise have none): "became unreadable" is a change the diff reports.
FileState unreadable(const std::string& why) {
  FileState st;
  st.digest = "!" + why;
  return st;
}

}  // namespace

Snapshot take_snapshot(const fs::path& root_arg, const std::vector<fs::path>& exclude) {
  Snapshot snap;
  const fs::path root = normalized(root_arg);
  std::set<fs::path> excluded;
  for (const fs::path& e : exclude) excluded.insert(normalized(e));

  FileState root_state;
  if (!stat_path(root, root_state)) return snap;  // a removed root diffs as "everything removed"
  snap[""] = root_state;
  if (root_state.type != 'd' || excluded.count(root)) return snap;

  // Depth-first with an explicit stack: a hostile tree may be thousands deep.
  std::vector<std::pair<fs::path, std::string>> pending{{root, ""}};
  while (!pending.empty()) {
    auto [dir, key] = std::move(pending.back());
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) {
      snap[key].digest = "!opendir: " + ec.message();
      continue;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (snap.size() >= kMaxSnapshotEntries) {
        snap["<truncated>"] = unreadable("truncated at " + std::to_string(kMaxSnapshotEntries) + " entries");
        return snap;
      }
      const fs::path child = it->path();
      const std::string name = child.filename().string();
      const std::string child_key = key.empty() ? name : key + "/" + name;
      FileState st;
      try {
        if (!stat_path(child, st)) continue;  // vanished between readdir and lstat
      } catch (const Error& e) {
        st = unreadable(e.what());
      }
      const bool descend = st.type == 'd' && st.dev == root_state.dev && !excluded.count(child);
      snap[child_key] = std::move(st);
      if (descend) pending.emplace_back(child, child_key);
    }
    if (ec) snap[key].digest = "!readdir: " + ec.message();
  }
  return snap;
}

namespace {

std::string describe(const FileState& a, const FileState& b) {
  std::string detail;
  auto add = [&detail](const std::string& field) {
    if (!detail.empty()) detail += ',';
    detail += field;
  };
  if (a.type != b.type) add("type");
  if (a.dev != b.dev || a.inode != b.inode) add("inode");  // replaced (rename-over, delete+create)
  if ((a.mode & 07777) != (b.mode & 07777)) add("mode");
  if (a.uid != b.uid || a.gid != b.gid) add("owner");
  if (a.size != b.size) add("size");
  if (a.nlink != b.nlink) add("nlink");  // a hard link made or removed elsewhere
  if (a.digest != b.digest) add("digest");
  std::set<std::string> names;
  for (const auto& kv : a.xattrs) names.insert(kv.first);
  for (const auto& kv : b.xattrs) names.insert(kv.first);
  for (const std::string& name : names) {
    const auto ia = a.xattrs.find(name);
    const auto ib = b.xattrs.find(name);
    const bool same = ia != a.xattrs.end() && ib != b.xattrs.end() && ia->second == ib->second;
    if (!same) add("xattr:" + name);
  }
  return detail;
}

}  // namespace

std::vector<std::string> change_fields(const std::string& detail) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start < detail.size();) {
    const std::size_t comma = std::min(detail.find(',', start), detail.size());
    if (comma > start) out.push_back(detail.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

const FileState* find_entry(const Snapshot& s, const std::string& rel) {
  const auto it = s.find(rel);
  return it == s.end() ? nullptr : &it->second;
}

std::vector<FsChange> diff_snapshots(const Snapshot& before, const Snapshot& after) {
  std::vector<FsChange> changes;
  auto ib = before.begin();
  auto ia = after.begin();
  while (ib != before.end() || ia != after.end()) {
    if (ia == after.end() || (ib != before.end() && ib->first < ia->first)) {
      changes.push_back({ib->first, "removed", std::string("type:") + ib->second.type});
      ++ib;
    } else if (ib == before.end() || ia->first < ib->first) {
      changes.push_back({ia->first, "created", std::string("type:") + ia->second.type});
      ++ia;
    } else {
      std::string detail = describe(ib->second, ia->second);
      if (!detail.empty()) changes.push_back({ia->first, "modified", std::move(detail)});
      ++ib;
      ++ia;
    }
  }
  return changes;
}

}  // namespace breakout
