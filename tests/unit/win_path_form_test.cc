// The Win32 path-form model, part 1: path types and GetFullPathNameW normalisation, each case citing the rule it asserts.
//
// Sources, cited per case:
//   [FPF] Microsoft Learn, "File path formats on Windows systems",
//         https://learn.microsoft.com/en-us/dotnet/standard/io/file-path-formats
//   [NAF] Microsoft Learn, "Naming Files, Paths, and Namespaces",
//         https://learn.microsoft.com/en-us/windows/win32/fileio/naming-a-file
//   [PZ]  James Forshaw, "The Definitive Guide on Win32 to NT Path Conversion", Google Project Zero, 2016,
//         https://googleprojectzero.blogspot.com/2016/02/the-definitive-guide-on-win32-to-nt.html
//   Also cited by id: crbug 334897 (https://crbug.com/334897), CVE-2024-43402.
#include <gtest/gtest.h>

#include "harness/paths/win_path.h"

using namespace breakout::winpath;

namespace {

Env env_with_d() {
  Env e;  // cwd C:\ws
  e.drive_cwd['D'] = "D:\\data";
  return e;
}

TEST(WinPathForm, TypesOfTheDocumentedExamples) {
  // [FPF] "Traditional DOS paths": "C:\Documents\Newsletters\Summer2018.pdf" is absolute from the root of C:.
  EXPECT_EQ(form_of("C:\\Documents\\Newsletters\\Summer2018.pdf"), breakout::winpath::Form::kDriveAbsolute);
  // [FPF] "\Program Files\Custom Utilities\StringFinder.exe": relative to the root of the current drive.
  EXPECT_EQ(form_of("\\Program Files\\Custom Utilities\\StringFinder.exe"), breakout::winpath::Form::kRooted);
  // [FPF] "2018\January.xlsx": relative to the current directory.
  EXPECT_EQ(form_of("2018\\January.xlsx"), breakout::winpath::Form::kRelative);
  // [FPF] "C:Projects\apilibrary\apilibrary.sln": relative to the current directory of drive C:.
  EXPECT_EQ(form_of("C:Projects\\apilibrary\\apilibrary.sln"), breakout::winpath::Form::kDriveRelative);
  // [FPF] "UNC paths": "\\system07\C$\" is the root of C: on system07.
  EXPECT_EQ(form_of("\\\\system07\\C$\\"), breakout::winpath::Form::kUnc);
  // [FPF] "DOS device paths": "\\.\C:\Test\Foo.txt" and "\\?\C:\Test\Foo.txt".
  EXPECT_EQ(form_of("\\\\.\\C:\\Test\\Foo.txt"), breakout::winpath::Form::kLocalDevice);
  EXPECT_EQ(form_of("\\\\?\\C:\\Test\\Foo.txt"), breakout::winpath::Form::kVerbatim);
  // [PZ] "\??\" is the NT object-manager prefix; RtlDetermineDosPathNameType_U sees a rooted path.
  EXPECT_EQ(form_of("\\??\\C:\\Test\\Foo.txt"), breakout::winpath::Form::kNtObject);
  // [PZ] "//?/" with forward slashes is a local device path, not verbatim: it is normalised.
  EXPECT_EQ(form_of("//?/C:/Test/Foo.txt"), breakout::winpath::Form::kLocalDevice);
  // [PZ] "\\." and "\\?" alone are RtlPathTypeRootLocalDevice.
  EXPECT_EQ(form_of("\\\\."), breakout::winpath::Form::kRootLocalDevice);
  EXPECT_EQ(form_of(""), breakout::winpath::Form::kEmpty);
}

TEST(WinPathForm, ApplyTheCurrentDirectory) {
  const Env e = env_with_d();
  // [FPF] "Apply the current directory": a relative path is combined with the current directory.
  EXPECT_EQ(full_path("2018\\January.xlsx", e), "C:\\ws\\2018\\January.xlsx");
  // [FPF] a rooted path starts at the root of the current drive.
  EXPECT_EQ(full_path("\\Program Files\\x", e), "C:\\Program Files\\x");
  // [FPF] "C:x" on the current drive uses the current directory.
  EXPECT_EQ(full_path("C:x", e), "C:\\ws\\x");
  // [FPF] "Apply the current directory": on another drive the per-drive current directory
  // comes from the hidden "=D:" environment variable (set by cmd.exe / SetCurrentDirectory).
  EXPECT_EQ(full_path("D:y", e), "D:\\data\\y");
  // [FPF] without such a variable the drive's root is used.
  EXPECT_EQ(full_path("E:y", e), "E:\\y");
}

TEST(WinPathForm, SeparatorsAndRelativeComponents) {
  const Env e;
  // [FPF] "Canonicalize separators": '/' becomes '\'; [NAF] both are separators for the Win32 layer.
  EXPECT_EQ(full_path("C:/ws/a/b", e), "C:\\ws\\a\\b");
  // [FPF] "Collapse repeated separators": runs of separators become one (the leading '\\' of UNC excepted).
  EXPECT_EQ(full_path("C:\\\\ws\\\\\\a", e), "C:\\ws\\a");
  // [FPF] "Evaluate relative components": '.' is removed, '..' removes the previous segment.
  EXPECT_EQ(full_path("C:\\ws\\.\\a\\..\\b", e), "C:\\ws\\b");
  // [FPF] '..' never removes the root: "C:\.." stays "C:\".
  EXPECT_EQ(full_path("C:\\..\\..\\x", e), "C:\\x");
  // [FPF] for UNC paths the root is "\\server\share\": '..' cannot climb out of the share.
  EXPECT_EQ(full_path("\\\\srv\\share\\..\\..\\x", e), "\\\\srv\\share\\x");
}

TEST(WinPathForm, TrimCharacters) {
  const Env e;
  // [FPF] "Trim characters": "If the path doesn't end in a separator, all trailing periods
  // and spaces (U+0020) are removed" from the last segment; CVE-2024-43402 ("x.bat. .").
  EXPECT_EQ(full_path("C:\\ws\\x.bat. .", e), "C:\\ws\\x.bat");
  // [FPF] "If a segment ends in a single period, that period is removed."
  EXPECT_EQ(full_path("C:\\ws.\\x", e), "C:\\ws\\x");
  // [FPF] a trailing separator keeps a trailing space: "you can create a directory name with a
  // trailing space by adding a trailing separator after the space".
  EXPECT_EQ(full_path("C:\\ws\\dir \\", e), "C:\\ws\\dir \\");
  // [NAF] "Do not end a file or directory name with a space or a period": the Win32 layer strips them.
  EXPECT_EQ(full_path("C:\\ws\\secret   ", e), "C:\\ws\\secret");
}

TEST(WinPathForm, DevicePathsAreNormalisedBelowTheirPrefix) {
  const Env e;
  // [FPF] "DOS device paths": "\\.\" paths are normalised; the first segment after the prefix
  // is the device, and '..' can remove it (crbug 334897: "\\.\X:\..\C:\" names C:).
  EXPECT_EQ(full_path("\\\\.\\X:\\..\\C:\\ws\\f", e), "\\\\.\\C:\\ws\\f");
  // [PZ] "//?/" is normalised like "\\.\" (only exactly "\\?\" skips normalisation).
  EXPECT_EQ(full_path("//?/C:/ws/a/../b", e), "\\\\?\\C:\\ws\\b");
  // [FPF] "Skip normalization": "\\?\" paths are passed on unchanged, '..' and trailing dots included.
  EXPECT_EQ(full_path("\\\\?\\C:\\ws\\..\\x. ", e), "\\\\?\\C:\\ws\\..\\x. ");
  // [PZ]: GetFullPathNameW treats "\??\C:\x" as rooted, while CreateFileW opens it as an NT path.
  EXPECT_EQ(full_path("\\??\\C:\\x", e), "C:\\??\\C:\\x");
}

}  // namespace
