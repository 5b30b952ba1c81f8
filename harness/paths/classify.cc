// The path classifier: region by the policy's resolved roots, identity by label, expectations by expect().
#include "harness/paths/classify.h"

namespace breakout::paths {

namespace fs = std::filesystem;

const char* to_string(Region r) {
  switch (r) {
    case Region::kDenyRead: return "deny-read";
    case Region::kWorkspace: return "workspace";
    case Region::kWritableRoot: return "writable-root";
    case Region::kSibling: return "sibling";
    case Region::kHome: return "home";
    case Region::kTree: return "tree";
    case Region::kOutside: return "outside";
  }
  return "?";
}

Classified classify(const fs::path& resolved, const std::string& object, const Policy& policy,
                    const TreeRoots& roots) {
  return classify(resolved, object, resolve(policy, roots), roots);
}

Classified classify(const fs::path& resolved, const std::string& object, const ResolvedPolicy& r,
                    const TreeRoots& roots) {
  Classified c;
  auto under_any = [](const fs::path& p, const std::vector<fs::path>& list) {
    for (const auto& root : list)
      if (path_within(p, root)) return true;
    return false;
  };
  if (under_any(resolved, r.deny_read)) c.region = Region::kDenyRead;
  else if (path_within(resolved, roots.workspace)) c.region = Region::kWorkspace;
  else if (under_any(resolved, r.writable)) c.region = Region::kWritableRoot;
  else if (path_within(resolved, roots.sibling)) c.region = Region::kSibling;
  else if (path_within(resolved, roots.home)) c.region = Region::kHome;
  else if (path_within(resolved, roots.tree)) c.region = Region::kTree;
  else c.region = Region::kOutside;
  c.object = object;
  c.deny_read_object = !object.empty() && under_any((roots.tree / object).lexically_normal(), r.deny_read);
  // The same rules a scenario's "fs:<absolute path>" target gets (expect() normalises it the same way).
  // Callers mostly pass an absolute normal path already: then no second copy of it is built
  // (a relative one still takes resolve_policy_path's symbolic reading, as before).
  const bool normal_already =
      !resolved.empty() && resolved.native().front() == '/' && is_lexically_normal(resolved);
  const fs::path renormalised = normal_already ? fs::path() : resolve_policy_path(resolved.string(), roots);
  const fs::path& normal = normal_already ? resolved : renormalised;
  c.write = expected_fs(FsRule::kWrite, normal, r);
  c.read = expected_fs(FsRule::kRead, normal, r);
  return c;
}

}  // namespace breakout::paths
