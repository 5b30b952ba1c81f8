// A lexical model of Win32 path resolution: which object a path form names and whether it lies inside a root.
//
//   winpath::Env env;                                   // cwd C:\ws, "=D:" variables, loopback names, volume maps
//   winpath::full_path("C:\\ws\\a\\..\\b. ", env)       // "C:\\ws\\b"   (GetFullPathNameW)
//   winpath::open_target("\\\\?\\UNC\\localhost\\C$\\ws\\x", env).volume  // "C:" (what CreateFileW opens)
//   winpath::within("\\\\.\\C:\\ws\\..\\secret", "C:\\ws", env).inside    // kOutside
// Rules and their sources: docs/path-forms.md and tests/unit/win_path_*_test.cc
// (Microsoft Learn "File path formats on Windows systems", "Naming Files, Paths,
// and Namespaces"; RtlGetFullPathName_U; Forshaw's DOS device path write-ups).
// Strings are UTF-8. What only the volume knows (8.3 names, case-sensitive
// directories, junctions) comes out kUnknown, never as a guess.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace breakout::winpath {

// RtlDetermineDosPathNameType_U's types, with the prefixes that skip it told apart.
enum class Form {
  kEmpty,
  kDriveAbsolute,    // C:\x
  kDriveRelative,    // C:x  (cwd of drive C: from the "=C:" variable)
  kRooted,           // \x   (root of the current drive)
  kRelative,         // x
  kUnc,              // \\server\share\x
  kLocalDevice,      // \\.\x, and //?/x (only "\\?\" with backslashes is verbatim)
  kRootLocalDevice,  // \\. or \\?
  kVerbatim,         // \\?\x  no normalisation
  kNtObject,         // \??\x  an NT object path CreateFileW passes through
};
const char* to_string(Form f);
Form form_of(std::string_view path);

struct Env {
  std::string cwd = "C:\\ws";                     // absolute and normalised
  std::map<char, std::string> drive_cwd;           // "=D:" -> "D:\\dir" (upper-case letter)
  std::vector<std::string> local_hosts = {"LOCALHOST", "127.0.0.1", "::1", "."};  // names of this machine (upper)
  std::map<std::string, char> volume_devices;      // "HARDDISKVOLUME3" -> 'C'
  std::map<std::string, char> volume_guids;        // "{GUID}" upper -> 'C'
  bool long_paths = false;                         // LongPathsEnabled + a manifest opting in
};

// GetFullPathNameW (RtlGetFullPathName_U): "\\?\" unchanged, everything else qualified and normalised.
std::string full_path(std::string_view path, const Env& env);

enum class Kind {
  kFile,     // a file or directory on a local volume
  kDevice,   // a device (CON, NUL, COM1, \\.\pipe\x, a raw volume)
  kRemote,   // a share of another machine
  kNothing,  // the open fails: too long, an invalid name
  kUnknown,  // only the volume knows (8.3 names, a loopback share's directory, '..' in a verbatim path)
};
const char* to_string(Kind k);

struct Object {
  Kind kind = Kind::kUnknown;
  std::string volume;              // "C:" for kFile; the device or \\server\share otherwise
  std::vector<std::string> parts;  // components below the volume root, upper-cased (NTFS folds case)
  std::string stream;              // "" is the default data stream; "NAME" or "$INDEX_ALLOCATION"
  int short_name_at = -1;          // index of the first component that may be an 8.3 name
  std::string why;                 // the rule that decided
};
// What CreateFileW opens for `path` (RtlDosPathNameToNtPathName_U, then the object manager).
Object open_target(std::string_view path, const Env& env);

enum class Inside { kInside, kOutside, kUnknown };
const char* to_string(Inside i);
struct Verdict {
  Inside inside = Inside::kUnknown;
  std::string why;
};
// Whether `path` names an object inside directory `root` (a drive-absolute path).
// Throws Error("bad-root", "...") when `root` is no local directory path.
Verdict within(std::string_view path, std::string_view root, const Env& env);
// The same judgement of objects already opened (open_target of the path and of the root), for
// callers that judge many paths against one root (fuzz/win_path_fuzzer.cc opens each once).
Verdict within(const Object& o, const Object& r, std::string_view root_text);

// The legacy DOS device a last component names (CON, NUL, COM1, COM¹, LPT3, CONIN$, ...), "" when none.
std::string dos_device(std::string_view component);
// Whether a component has the shape of an 8.3 short name ("PROGRA~1", "SECRET~2.TXT").
bool may_be_short_name(std::string_view component);
// ASCII upper case: NTFS compares names through the volume's upcase table; the model folds ASCII only.
std::string upper(std::string_view s);

}  // namespace breakout::winpath
