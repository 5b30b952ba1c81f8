// Spelling a drive-absolute Windows path in each Windows path form (rules and sources: win_spell.h, docs/path-forms.md).
#include "harness/paths/win_spell.h"

#include <algorithm>
#include <cctype>

#include "harness/core/error.h"

namespace breakout::winpath {

namespace {

// The forms and the order docs/windows.md lists them in.
const std::vector<std::string_view> kNames = {
    "drive-absolute", "forward-slashes", "repeated-separators", "dot-segments", "trailing-dots-spaces",
    "case-swapped",   "rooted",          "drive-relative",      "relative",     "local-device",
    "verbatim",       "verbatim-forward-slashes", "nt-object",  "globalroot-device", "volume-guid",
    "unc-localhost",  "unc-loopback-ip", "verbatim-unc",        "short-name",   "ads-data",
    "ads-named",      "ads-index-allocation", "long-path",      "junction",     "dir-symlink",
    "file-symlink",   "hardlink",        "rpc-control"};

// A path taken apart: "C:" and the components below the root.
struct Split {
  std::string drive;  // "C:"
  std::vector<std::string> parts;
};

std::string join(const std::vector<std::string>& parts, std::size_t from, std::size_t to, std::string_view sep) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    if (i > from) out += sep;
    out += parts[i];
  }
  return out;
}

// Only drive-absolute paths are accepted: that is what the harness passes ([FPF] "Traditional DOS paths").
bool split(std::string_view path, Split* s) {
  if (path.size() < 3 || !std::isalpha(static_cast<unsigned char>(path[0])) || path[1] != ':' ||
      (path[2] != '\\' && path[2] != '/'))
    return false;
  s->drive = std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(path[0])))) + ":";
  std::string part;
  for (std::size_t i = 3; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '\\' || path[i] == '/') {
      if (!part.empty()) s->parts.push_back(part);
      part.clear();
    } else {
      part += path[i];
    }
  }
  return !s->parts.empty();
}

std::string fold(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string swap_case(std::string s) {
  for (auto& c : s) {
    const auto u = static_cast<unsigned char>(c);
    c = static_cast<char>(std::isupper(u) ? std::tolower(u) : std::toupper(u));
  }
  return s;
}

// `to` relative to directory `from` (both split, same drive): "..\..\sibling\f". NTFS folds case, so the common
// prefix is compared case-insensitively ([NAF] "Naming Conventions": case-insensitive by default).
std::string relative(const Split& from, const Split& to) {
  std::size_t common = 0;
  while (common < from.parts.size() && common < to.parts.size() &&
         fold(from.parts[common]) == fold(to.parts[common]))
    ++common;
  std::vector<std::string> rel(from.parts.size() - common, "..");
  rel.insert(rel.end(), to.parts.begin() + static_cast<std::ptrdiff_t>(common), to.parts.end());
  return join(rel, 0, rel.size(), "\\");
}

std::string trim_trailing_slash(std::string s) {
  while (!s.empty() && (s.back() == '\\' || s.back() == '/')) s.pop_back();
  return s;
}

}  // namespace

const std::vector<std::string_view>& spelling_names() { return kNames; }

bool is_spelling(std::string_view name) { return std::find(kNames.begin(), kNames.end(), name) != kNames.end(); }

Spelling spell(std::string_view name, std::string_view path, const SpellFacts& facts) {
  if (!is_spelling(name)) throw Error("bad-form", "unknown Windows path form '" + std::string(name) + "'");
  Spelling out;
  Split s;
  if (!split(path, &s)) {
    out.unavailable = "the target is not a drive-absolute path: " + std::string(path);
    return out;
  }
  const std::string rest = join(s.parts, 0, s.parts.size(), "\\");               // below the root
  const std::string plain = s.drive + "\\" + rest;                                // C:\a\b\f
  const std::string parent = s.drive + "\\" + join(s.parts, 0, s.parts.size() - 1, "\\");
  const std::string& last = s.parts.back();
  Split cwd;
  const bool cwd_same_drive = split(facts.cwd + "\\x", &cwd) && cwd.drive == s.drive;
  if (cwd_same_drive) cwd.parts.pop_back();  // the "\x" only made a root cwd splittable
  const auto need_cwd = [&] {
    if (!cwd_same_drive) out.unavailable = "the current directory (" + facts.cwd + ") is not on " + s.drive;
    return cwd_same_drive;
  };
  const auto need_link = [&] {
    if (facts.link.empty()) out.unavailable = "no --link path to plant the link at";
    return !facts.link.empty();
  };

  if (name == "drive-absolute") {
    out.path = plain;
  } else if (name == "forward-slashes") {  // [FPF] "Canonicalize separators": '/' becomes '\'
    out.path = plain;
    std::replace(out.path.begin(), out.path.end(), '\\', '/');
  } else if (name == "repeated-separators") {  // [FPF] "a series of separators is collapsed into one"
    out.path = s.drive + "\\\\" + join(s.parts, 0, s.parts.size(), "\\\\\\");
  } else if (name == "dot-segments") {  // [FPF] "Evaluate relative components": '.' removed, '..' removes the one before
    std::string p = s.drive + "\\.";
    for (std::size_t i = 0; i + 1 < s.parts.size(); ++i) p += "\\" + s.parts[i] + "\\.";
    out.path = p + "\\breakout-none\\..\\" + last;  // breakout-none need not exist: the rule is lexical
  } else if (name == "trailing-dots-spaces") {  // [FPF] "Trim characters": trailing periods and spaces of the last segment go
    out.path = plain + ". .";
  } else if (name == "case-swapped") {  // [NAF] case-insensitive names; the last one is kept, a new file keeps its spelling
    std::vector<std::string> parts = s.parts;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) parts[i] = swap_case(parts[i]);
    out.path = fold(s.drive) + "\\" + join(parts, 0, parts.size(), "\\");
    out.path[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out.path[0])));
  } else if (name == "rooted") {  // [FPF] "\Program Files\...": the root of the current drive
    if (need_cwd()) out.path = "\\" + rest;
  } else if (name == "drive-relative") {  // [FPF] "C:Projects\...": the current directory of drive C:
    if (need_cwd()) out.path = s.drive + relative(cwd, s);
  } else if (name == "relative") {  // [FPF] "2018\January.xlsx", "..\Publications\TravelBrochure.pdf"
    if (need_cwd()) out.path = relative(cwd, s);
  } else if (name == "local-device") {  // [FPF] "DOS device paths": \\.\C:\Test\Foo.txt
    out.path = "\\\\.\\" + plain;
  } else if (name == "verbatim") {  // [FPF] \\?\C:\Test\Foo.txt, [NAF] "Win32 File Namespaces"
    out.path = "\\\\?\\" + plain;
  } else if (name == "verbatim-forward-slashes") {  // Forshaw 2016: only "\\?\" is verbatim, "//?/" is normalised
    out.path = "//?/" + plain;
    std::replace(out.path.begin() + 4, out.path.end(), '\\', '/');
  } else if (name == "nt-object") {  // Forshaw 2016: "\??\" passes to the object manager as it is
    out.path = "\\??\\" + plain;
  } else if (name == "globalroot-device") {  // [NAF] "NT Namespaces": \\?\GLOBALROOT\Device\HarddiskVolume1\...
    if (facts.nt_device.empty()) out.unavailable = "QueryDosDeviceW(\"" + s.drive + "\") gave no NT device";
    else out.path = "\\\\?\\GLOBALROOT" + trim_trailing_slash(facts.nt_device) + "\\" + rest;
  } else if (name == "volume-guid") {  // [FPF] \\?\Volume{b75e2c83-0000-0000-0000-602f00000000}\Test\Foo.txt
    if (facts.volume_guid_root.empty())
      out.unavailable = "GetVolumeNameForVolumeMountPointW(\"" + s.drive + "\\\") gave no volume GUID path";
    else out.path = trim_trailing_slash(facts.volume_guid_root) + "\\" + rest;
  } else if (name == "unc-localhost") {  // [FPF] "UNC paths": \\system07\C$\ is the root of C: there
    out.path = "\\\\localhost\\" + s.drive.substr(0, 1) + "$\\" + rest;
  } else if (name == "unc-loopback-ip") {
    out.path = "\\\\127.0.0.1\\" + s.drive.substr(0, 1) + "$\\" + rest;
  } else if (name == "verbatim-unc") {  // [FPF] \\?\UNC\Server\Share\Test\Foo.txt
    out.path = "\\\\?\\UNC\\localhost\\" + s.drive.substr(0, 1) + "$\\" + rest;
  } else if (name == "short-name") {  // [NAF] "Short vs. Long Names"
    if (facts.short_parent.empty())
      out.unavailable = "GetShortPathNameW gave no 8.3 alias for " + parent;
    else if (fold(trim_trailing_slash(facts.short_parent)) == fold(parent))
      out.unavailable = "no directory of " + parent + " has an 8.3 alias other than its long name";
    else out.path = trim_trailing_slash(facts.short_parent) + "\\" + last;
  } else if (name == "ads-data") {  // "File Streams": the default stream of a file is "::$DATA"
    out.path = plain + "::$DATA";
  } else if (name == "ads-named") {  // "File Streams": "file:stream" creates the file when it does not exist
    out.path = plain + ":breakout";
  } else if (name == "ads-index-allocation") {  // "File Streams": a directory's index is "dir::$INDEX_ALLOCATION"
    out.path = plain + "::$INDEX_ALLOCATION";
  } else if (name == "long-path") {  // [NAF] "Maximum Path Length Limitation": 260 without "\\?\" or the opt-in
    std::string pad;
    while (plain.size() + pad.size() <= 300) pad += ".\\";
    out.path = s.drive + "\\" + pad + rest;  // only '.' segments: normalised, the object stays the same
  } else if (name == "junction") {  // FSCTL_SET_REPARSE_POINT, IO_REPARSE_TAG_MOUNT_POINT to the target's directory
    if (need_link()) {
      out.plant = Plant::kJunction;
      out.plant_at = facts.link;
      out.plant_to = "\\??\\" + parent;
      out.path = facts.link + "\\" + last;
    }
  } else if (name == "dir-symlink") {  // CreateSymbolicLinkW(SYMBOLIC_LINK_FLAG_DIRECTORY) to the target's directory
    if (need_link()) {
      out.plant = Plant::kDirSymlink;
      out.plant_at = facts.link;
      out.plant_to = parent;
      out.path = facts.link + "\\" + last;
    }
  } else if (name == "file-symlink") {  // CreateSymbolicLinkW to the target itself
    if (need_link()) {
      out.plant = Plant::kFileSymlink;
      out.plant_at = facts.link;
      out.plant_to = plain;
      out.path = facts.link;
    }
  } else if (name == "hardlink") {  // CreateHardLinkW: a second name of the target inside the workspace
    if (need_link()) {
      out.plant = Plant::kHardLink;
      out.plant_at = facts.link;
      out.plant_to = plain;
      out.path = facts.link;
    }
  } else {  // rpc-control. Forshaw, symboliclink-testing-tools CreateSymlink: a junction to "\RPC Control"
            // (writable by everyone) holding an object-manager symbolic link to the target file
    if (facts.object_name.empty()) out.unavailable = "no object name for the \\RPC Control link";
    else if (need_link()) {
      out.plant = Plant::kRpcControl;
      out.plant_at = facts.link;
      out.plant_to = "\\RPC Control";
      out.object_link = "\\RPC Control\\" + facts.object_name;
      out.object_target = "\\??\\" + plain;
      out.path = facts.link + "\\" + facts.object_name;
    }
  }
  return out;
}

}  // namespace breakout::winpath
