// record_setup: the boot's snapshot diff, each change classified by classify_access.
#include "harness/attempt/setup_record.h"

#include "harness/attempt/observe.h"
#include "harness/core/text.h"

namespace breakout {

SetupRecord record_setup(const Snapshot& before_boot, const Snapshot& after_boot, const AttemptTree& tree,
                         const ResolvedPolicy& policy) {
  SetupRecord r;
  const WritableRoots roots(tree, policy);
  for (auto& c : diff_snapshots(before_boot, after_boot)) {
    SetupChange s;
    s.access = classify_access(find_entry(before_boot, c.path), find_entry(after_boot, c.path));
    s.outside_writable_roots = !roots.contains(c.path);
    s.change = std::move(c);
    r.changes.push_back(std::move(s));
  }
  return r;
}

std::vector<const SetupChange*> SetupRecord::widening() const {
  std::vector<const SetupChange*> out;
  for (const auto& c : changes)
    if (c.outside_writable_roots && c.access.move == AccessMove::kWidens) out.push_back(&c);
  return out;
}

std::string describe(const SetupChange& c) {
  std::string s = c.change.kind + " " + (c.change.path.empty() ? std::string("<tree root>") : c.change.path) + " (" +
                  c.change.detail + "; " + to_string(c.access.move);
  if (!c.access.why.empty()) s += ": " + c.access.why;
  return printable_excerpt(s + ")", 512);
}

nlohmann::json SetupRecord::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < changes.size() && i < 32; ++i) {
    const SetupChange& c = changes[i];
    list.push_back({{"path", printable_excerpt(c.change.path, 512)},
                    {"change", c.change.kind},
                    {"fields", printable_excerpt(c.change.detail, 512)},
                    {"access", to_string(c.access.move)},
                    {"why", printable_excerpt(c.access.why, 256)},
                    {"outside_writable_roots", c.outside_writable_roots}});
  }
  return {{"changes", list}, {"changes_total", changes.size()}, {"widening_outside_writable_roots", widening().size()}};
}

}  // namespace breakout
