// Path form names (model/path_form.h).
#include "harness/model/path_form.h"

#include <utility>

namespace breakout {

namespace {

constexpr std::pair<PathForm, const char*> kFormNames[] = {
    {PathForm::kAbsolute, "absolute"},          {PathForm::kDotDot, "dotdot"},
    {PathForm::kDoubleSlash, "double-slash"},    {PathForm::kDotSlash, "dot-slash"},
    {PathForm::kTrailingSlash, "trailing-slash"}, {PathForm::kSiblingPrefix, "sibling-prefix"},
    {PathForm::kProcSelfRoot, "proc-self-root"}, {PathForm::kProcSelfCwd, "proc-self-cwd"},
    {PathForm::kSymlinkFile, "symlink-file"},    {PathForm::kSymlinkDir, "symlink-dir"},
    {PathForm::kSymlinkChain, "symlink-chain"},  {PathForm::kSymlinkDangling, "symlink-dangling"},
    {PathForm::kHardLink, "hard-link"},
};

}  // namespace

const char* to_string(PathForm f) {
  for (const auto& [form, name] : kFormNames)
    if (form == f) return name;
  return "?";
}

std::optional<PathForm> path_form_from(const std::string& name) {
  if (name.empty()) return PathForm::kAbsolute;
  for (const auto& [form, n] : kFormNames)
    if (name == n) return form;
  return std::nullopt;
}

const std::vector<PathForm>& all_path_forms() {
  static const std::vector<PathForm> all = [] {
    std::vector<PathForm> v;
    for (const auto& [form, name] : kFormNames) v.push_back(form);
    return v;
  }();
  return all;
}

}  // namespace breakout
