// Path forms: the spellings of one host path an attempt can aim with (docs/path-forms.md).
//
// Names only; attempt/spell_path.h plants and spells them on an attempt tree.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace breakout {

enum class PathForm {
  kAbsolute,        // /t/sibling/f
  kDotDot,          // /t/workspace/../sibling/f
  kDoubleSlash,     // //t//sibling//f
  kDotSlash,        // /./t/./sibling/./f
  kTrailingSlash,   // /t/sibling/f/
  kSiblingPrefix,   // /t/workspace-sibling/f: a string-prefix check of /t/workspace accepts it
  kProcSelfRoot,    // /proc/self/root/t/sibling/f
  kProcSelfCwd,     // /proc/self/cwd/../sibling/f (relative to the caller's cwd)
  kSymlinkFile,     // /t/workspace/.hop-<tag> -> /t/sibling/f
  kSymlinkDir,      // /t/workspace/.hopdir-<tag>/f, .hopdir -> /t/sibling
  kSymlinkChain,    // /t/workspace/.hop1-<tag>/f, .hop1 -> .hop2 -> /t/sibling
  kSymlinkDangling, // /t/workspace/.later-<tag> -> /t/sibling/f, which does not exist yet (the write creates it)
  kHardLink,        // /t/workspace/.hl-<tag>, a second name of /t/sibling/f (driver fs API only)
};

const char* to_string(PathForm f);
std::optional<PathForm> path_form_from(const std::string& name);  // "" is kAbsolute
const std::vector<PathForm>& all_path_forms();

}  // namespace breakout
