// The Windows path-form rewriter (harness/paths/win_spell.h): each spelling checked against a documented example, then against the path model.
//
// Sources, cited per case:
//   [FPF] Microsoft Learn, "File path formats on Windows systems",
//         https://learn.microsoft.com/en-us/dotnet/standard/io/file-path-formats
//   [NAF] Microsoft Learn, "Naming Files, Paths, and Namespaces",
//         https://learn.microsoft.com/en-us/windows/win32/fileio/naming-a-file
//   [FS]  Microsoft Learn, "File Streams (Local File Systems)",
//         https://learn.microsoft.com/en-us/windows/win32/fileio/file-streams
//   [PZ]  James Forshaw, "The Definitive Guide on Win32 to NT Path Conversion", Google Project Zero, 2016
//   [SLT] James Forshaw, symboliclink-testing-tools (CreateSymlink: a mount point to "\RPC Control" + an object link)
#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/paths/win_path.h"
#include "harness/paths/win_spell.h"

using namespace breakout::winpath;

namespace {

// The documented example file of [FPF] "DOS device paths".
constexpr const char* kFoo = "C:\\Test\\Foo.txt";

SpellFacts facts() {
  SpellFacts f;
  f.cwd = "C:\\Test\\ws";
  f.volume_guid_root = "\\\\?\\Volume{b75e2c83-0000-0000-0000-602f00000000}\\";
  f.nt_device = "\\Device\\HarddiskVolume3";
  f.link = "C:\\Test\\ws\\j";
  f.object_name = "breakout-1";
  return f;
}

std::string path_of(std::string_view form, std::string_view path = kFoo) {
  const Spelling s = spell(form, path, facts());
  EXPECT_EQ(s.unavailable, "") << form;
  return s.path;
}

struct Documented {
  const char* form;
  const char* spelled;  // of kFoo, with facts()
  const char* source;   // the rule it follows
};

// One row per form: the spelling of [FPF]'s example file "C:\Test\Foo.txt" and where the rule is written.
const Documented kDocumented[] = {
    {"local-device", "\\\\.\\C:\\Test\\Foo.txt", "[FPF] DOS device paths: \\\\.\\C:\\Test\\Foo.txt"},
    {"verbatim", "\\\\?\\C:\\Test\\Foo.txt", "[FPF] DOS device paths: \\\\?\\C:\\Test\\Foo.txt"},
    {"volume-guid", "\\\\?\\Volume{b75e2c83-0000-0000-0000-602f00000000}\\Test\\Foo.txt",
     "[FPF] \\\\.\\Volume{b75e2c83-...}\\Test\\Foo.txt (the \\\\?\\ the API returns)"},
    {"verbatim-unc", "\\\\?\\UNC\\localhost\\C$\\Test\\Foo.txt", "[FPF] \\\\?\\UNC\\Server\\Share\\Test\\Foo.txt"},
    {"unc-localhost", "\\\\localhost\\C$\\Test\\Foo.txt", "[FPF] UNC paths: \\\\system07\\C$\\ is C: there"},
    {"unc-loopback-ip", "\\\\127.0.0.1\\C$\\Test\\Foo.txt", "[FPF] UNC paths"},
    {"globalroot-device", "\\\\?\\GLOBALROOT\\Device\\HarddiskVolume3\\Test\\Foo.txt",
     "[NAF] NT Namespaces: \\\\?\\GLOBALROOT, \\Device\\HarddiskVolume1"},
    {"nt-object", "\\??\\C:\\Test\\Foo.txt", "[PZ] \\??\\ reaches the object manager unchanged"},
    {"verbatim-forward-slashes", "//?/C:/Test/Foo.txt", "[PZ] only \\\\?\\ with backslashes is verbatim"},
    {"forward-slashes", "C:/Test/Foo.txt", "[FPF] Canonicalize separators: / becomes \\"},
    {"repeated-separators", "C:\\\\Test\\\\\\Foo.txt", "[FPF] Canonicalize separators: runs collapse"},
    {"dot-segments", "C:\\.\\Test\\.\\breakout-none\\..\\Foo.txt", "[FPF] Evaluate relative components"},
    {"trailing-dots-spaces", "C:\\Test\\Foo.txt. .", "[FPF] Trim characters: trailing periods and spaces"},
    {"case-swapped", "c:\\tEST\\Foo.txt", "[NAF] Naming Conventions: case-insensitive (the last name kept)"},
    {"rooted", "\\Test\\Foo.txt", "[FPF] \\Program Files\\...: the root of the current drive"},
    {"drive-relative", "C:..\\Foo.txt", "[FPF] C:Projects\\...: drive C:'s current directory"},
    {"relative", "..\\Foo.txt", "[FPF] ..\\Publications\\...: the current directory"},
    {"ads-data", "C:\\Test\\Foo.txt::$DATA", "[FS] ::$DATA is the default stream"},
    {"ads-named", "C:\\Test\\Foo.txt:breakout", "[FS] file:name is a named stream"},
    {"ads-index-allocation", "C:\\Test\\Foo.txt::$INDEX_ALLOCATION", "[FS] a directory's index stream"},
};

TEST(WinSpell, EachFormAsDocumented) {
  for (const auto& d : kDocumented) EXPECT_EQ(path_of(d.form), d.spelled) << d.form << ": " << d.source;
}

TEST(WinSpell, LongPathGoesPastMaxPath) {
  // [NAF] "Maximum Path Length Limitation": MAX_PATH is 260; the spelling is longer, its normalised form is not.
  const std::string long_path = path_of("long-path");
  EXPECT_GT(long_path.size(), 300u);
  EXPECT_EQ(long_path.substr(0, 7), "C:\\.\\.\\");
}

TEST(WinSpell, EverySpellingOfALexicalFormOpensTheSameObjectInTheModel) {
  Env env;  // the model (win_path.h) with the volume facts above
  env.cwd = "C:\\Test\\ws";
  env.volume_devices["HARDDISKVOLUME3"] = 'C';
  env.volume_guids["{B75E2C83-0000-0000-0000-602F00000000}"] = 'C';
  const Object want = open_target("C:\\Test\\sibling\\f", env);
  ASSERT_EQ(want.kind, breakout::winpath::Kind::kFile);
  for (const auto name : spelling_names()) {
    const Spelling s = spell(name, "C:\\Test\\sibling\\f", facts());
    if (s.plant != Plant::kNone || name == "short-name" || name == "long-path") continue;  // the volume decides
    ASSERT_EQ(s.unavailable, "") << name;
    const Object got = open_target(s.path, env);
    if (got.kind == breakout::winpath::Kind::kUnknown) continue;  // the model does not guess (a loopback share's authentication)
    EXPECT_EQ(got.kind, breakout::winpath::Kind::kFile) << name << ": " << s.path << " (" << got.why << ")";
    EXPECT_EQ(got.volume, want.volume) << name;
    EXPECT_EQ(got.parts, want.parts) << name << ": " << s.path;
    if (name != "ads-named" && name != "ads-index-allocation") {
      EXPECT_EQ(got.stream, "") << name;
    }
  }
}

TEST(WinSpell, ReparsePointsPlantInTheWorkspaceAndAimThroughIt) {
  // Microsoft Learn "Reparse Points": a junction's target is an NT path ("\??\C:\dir").
  Spelling j = spell("junction", "C:\\t\\sibling\\f", facts());
  EXPECT_EQ(j.plant, Plant::kJunction);
  EXPECT_EQ(j.plant_at, "C:\\Test\\ws\\j");
  EXPECT_EQ(j.plant_to, "\\??\\C:\\t\\sibling");
  EXPECT_EQ(j.path, "C:\\Test\\ws\\j\\f");
  Spelling d = spell("dir-symlink", "C:/t/sibling/f", facts());
  EXPECT_EQ(d.plant, Plant::kDirSymlink);
  EXPECT_EQ(d.plant_to, "C:\\t\\sibling");
  EXPECT_EQ(d.path, "C:\\Test\\ws\\j\\f");
  EXPECT_EQ(spell("file-symlink", kFoo, facts()).plant_to, kFoo);
  EXPECT_EQ(spell("hardlink", kFoo, facts()).path, "C:\\Test\\ws\\j");
  // [SLT] CreateSymlink: junction -> "\RPC Control", object link "\RPC Control\name" -> "\??\<target>".
  Spelling r = spell("rpc-control", kFoo, facts());
  EXPECT_EQ(r.plant, Plant::kRpcControl);
  EXPECT_EQ(r.plant_to, "\\RPC Control");
  EXPECT_EQ(r.object_link, "\\RPC Control\\breakout-1");
  EXPECT_EQ(r.object_target, "\\??\\C:\\Test\\Foo.txt");
  EXPECT_EQ(r.path, "C:\\Test\\ws\\j\\breakout-1");
}

TEST(WinSpell, FormsThatCannotApplySayWhy) {
  SpellFacts none;  // the system told nothing
  EXPECT_NE(spell("short-name", kFoo, none).unavailable, "");
  EXPECT_NE(spell("volume-guid", kFoo, none).unavailable, "");
  EXPECT_NE(spell("globalroot-device", kFoo, none).unavailable, "");
  EXPECT_NE(spell("junction", kFoo, none).unavailable, "");
  EXPECT_NE(spell("rooted", kFoo, none).unavailable, "");  // no cwd: the root of which drive?
  SpellFacts d = facts();
  d.cwd = "D:\\x";  // [FPF] a rooted or drive-relative path follows the current drive, not the target's
  EXPECT_NE(spell("rooted", kFoo, d).unavailable, "");
  // [NAF] "Short vs. Long Names": an alias equal to the long name is no other spelling.
  SpellFacts s = facts();
  s.short_parent = "C:\\TEST";
  EXPECT_NE(spell("short-name", kFoo, s).unavailable, "");
  s.short_parent = "C:\\PROGRA~1";
  EXPECT_EQ(spell("short-name", "C:\\Program Files\\f", s).path, "C:\\PROGRA~1\\f");
  EXPECT_NE(spell("verbatim", "relative\\f", facts()).unavailable, "");
  EXPECT_THROW(spell("no-such-form", kFoo, facts()), breakout::Error);
}

}  // namespace
