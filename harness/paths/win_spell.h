// Rewriting a drive-absolute Windows path into another spelling of the same object: what the Windows fs probes aim with.
//
//   SpellFacts facts;  facts.cwd = "C:\\t\\workspace";
//   spell("verbatim-unc", "C:\\t\\sibling\\f", facts).path       // "\\\\?\\UNC\\localhost\\C$\\t\\sibling\\f"
//   spell("junction", "C:\\t\\sibling\\f", facts_with_link)      // plant a junction at facts.link -> \??\C:\t\sibling,
//                                                                 // then aim at <link>\f
// Pure string work, portable and unit-tested on Linux (tests/unit/win_spell_test.cc, each
// case citing Microsoft Learn "File path formats on Windows systems" [FPF] or "Naming
// Files, Paths, and Namespaces" [NAF], or Forshaw). What only the running system knows
// (8.3 aliases, the volume GUID, the NT device, the cwd) comes in through SpellFacts; the
// probe (probes/win/path_form.cc) asks the system for it and plants the reparse points.
// A form that cannot apply says why in `unavailable`: the attempt becomes a skip, never a pass.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace breakout::winpath {

// What the probe learnt from the system; "" = the system did not say.
struct SpellFacts {
  std::string cwd;               // GetCurrentDirectoryW (drive-absolute)
  std::string short_parent;      // GetShortPathNameW of the target's parent directory
  std::string volume_guid_root;  // GetVolumeNameForVolumeMountPointW("C:\\"): "\\?\Volume{GUID}\"
  std::string nt_device;         // QueryDosDeviceW("C:"): "\Device\HarddiskVolume3"
  std::string link;              // a workspace path where a reparse point or link may be planted
  std::string object_name;       // the name of the object-manager link under \RPC Control
};

// What the probe must create before it aims at `Spelling::path`.
enum class Plant { kNone, kJunction, kDirSymlink, kFileSymlink, kHardLink, kRpcControl };

struct Spelling {
  std::string path;           // what the operation is handed
  Plant plant = Plant::kNone;
  std::string plant_at;       // the link's own path (facts.link)
  std::string plant_to;       // junction: the NT target "\??\C:\dir"; symlinks and hard links: a Win32 path
  std::string object_link;    // kRpcControl: "\RPC Control\<name>"
  std::string object_target;  // kRpcControl: "\??\C:\...\file", what the object link points to
  std::string unavailable;    // non-empty: the form does not apply to this path here, and why
};

// Every form name, in the order docs/windows.md lists them.
const std::vector<std::string_view>& spelling_names();
bool is_spelling(std::string_view name);

// Spells `path` (drive-absolute, "\" or "/" separators) in form `name`.
// Throws Error("bad-form", "...") for an unknown name.
Spelling spell(std::string_view name, std::string_view path, const SpellFacts& facts);

}  // namespace breakout::winpath
