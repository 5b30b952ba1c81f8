// The Win32 path-form model, part 2: what CreateFileW opens and whether it lies inside a root, each case citing the rule it asserts.
//
// Sources, cited per case:
//   [FPF] Microsoft Learn, "File path formats on Windows systems",
//         https://learn.microsoft.com/en-us/dotnet/standard/io/file-path-formats
//   [NAF] Microsoft Learn, "Naming Files, Paths, and Namespaces",
//         https://learn.microsoft.com/en-us/windows/win32/fileio/naming-a-file
//   [FST] Microsoft Learn, "File Streams (Local File Systems)",
//         https://learn.microsoft.com/en-us/windows/win32/fileio/file-streams
//   [PZ]  James Forshaw, "The Definitive Guide on Win32 to NT Path Conversion", Google Project Zero, 2016,
//         https://googleprojectzero.blogspot.com/2016/02/the-definitive-guide-on-win32-to-nt.html
//   [FSH] James Forshaw, "Sharing a Logon Session a Little Too Much", Google Project Zero, 2020
//   Also cited by id: crbug 334897 (https://crbug.com/334897), RUSTSEC-2024-0438.
#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/paths/win_path.h"

using namespace breakout;
using namespace breakout::winpath;

namespace {

Env test_env() {
  Env e;  // cwd C:\ws
  e.volume_devices["HARDDISKVOLUME3"] = 'C';
  e.volume_guids["{B75E2C83-0000-0000-0000-602F00000000}"] = 'C';
  return e;
}

Inside in_ws(const std::string& path) { return within(path, "C:\\ws", test_env()).inside; }

TEST(WinPathObject, CaseAndSpellingsOfTheSameFile) {
  // [NAF] "Do not assume case sensitivity ... OSCAR, Oscar, and oscar" name the same file on NTFS by
  // default; "Volume designators (drive letters) are similarly case-insensitive".
  EXPECT_EQ(in_ws("c:\\WS\\Notes.txt"), Inside::kInside);
  // [FPF] relative, drive-relative and rooted forms are qualified against the cwd (C:\ws).
  EXPECT_EQ(in_ws("notes.txt"), Inside::kInside);
  EXPECT_EQ(in_ws("C:notes.txt"), Inside::kInside);
  EXPECT_EQ(in_ws("\\ws\\notes.txt"), Inside::kInside);
  // [FPF] "Evaluate relative components": "..\sibling" leaves the root.
  EXPECT_EQ(in_ws("..\\sibling\\x"), Inside::kOutside);
  EXPECT_EQ(in_ws("C:\\ws\\..\\ws-sibling\\x"), Inside::kOutside);
  // [FPF] "Trim characters": the trailing dot goes, so "C:\ws." is the root itself.
  EXPECT_EQ(in_ws("C:\\ws.\\x"), Inside::kInside);
  // [NAF] another volume is never inside.
  EXPECT_EQ(in_ws("D:\\ws\\x"), Inside::kOutside);
}

TEST(WinPathObject, DevicePrefixes) {
  // [FPF] "DOS device paths": "\\.\C:\Test\Foo.txt" and "\\?\C:\Test\Foo.txt" name C:\Test\Foo.txt.
  const Object dot = open_target("\\\\.\\C:\\Test\\Foo.txt", test_env());
  EXPECT_EQ(dot.kind, breakout::winpath::Kind::kFile);
  EXPECT_EQ(dot.volume, "C:");
  EXPECT_EQ(dot.parts, (std::vector<std::string>{"TEST", "FOO.TXT"}));
  // crbug 334897: '..' in a "\\.\" path removes the device segment: "\\.\X:\..\C:\ws\f" is C:\ws\f.
  EXPECT_EQ(in_ws("\\\\.\\X:\\..\\C:\\ws\\f"), Inside::kInside);
  // [FPF] "\\.\Volume{b75e2c83-0000-0000-0000-602f00000000}\Test\Foo.txt": a volume by GUID (mapped to C: here).
  EXPECT_EQ(in_ws("\\\\?\\Volume{b75e2c83-0000-0000-0000-602f00000000}\\ws\\f"), Inside::kInside);
  // [PZ] "\\?\GLOBALROOT\Device\HarddiskVolume3\..." opens through the object manager's device (C: here).
  EXPECT_EQ(in_ws("\\\\?\\GLOBALROOT\\Device\\HarddiskVolume3\\ws\\f"), Inside::kInside);
  // [PZ] a device the model has no volume for: unknown, never a guess.
  EXPECT_EQ(in_ws("\\\\?\\GLOBALROOT\\Device\\HarddiskVolume9\\ws\\f"), Inside::kUnknown);
  // [FPF] "\\.\C:" without a path is the volume itself (a raw device), not its root directory.
  EXPECT_EQ(open_target("\\\\.\\C:", test_env()).kind, breakout::winpath::Kind::kDevice);
  // [PZ] "\\.\pipe\x" is a named pipe in the device namespace.
  EXPECT_EQ(open_target("\\\\.\\pipe\\x", test_env()).kind, breakout::winpath::Kind::kDevice);
}

TEST(WinPathObject, VerbatimSkipsNormalisation) {
  // [FPF] "Skip normalization": "\\?\" paths reach the file system unchanged, so a trailing dot
  // is part of the name: "\\?\C:\ws\x." is the file "x." (inside the root, but not "x").
  const Object v = open_target("\\\\?\\C:\\ws\\x.", test_env());
  EXPECT_EQ(v.parts, (std::vector<std::string>{"WS", "X."}));
  EXPECT_EQ(open_target("C:\\ws\\x.", test_env()).parts, (std::vector<std::string>{"WS", "X"}));
  // [FPF] '..' in a verbatim path is not evaluated by Win32; what the file system makes of it needs a host.
  EXPECT_EQ(in_ws("\\\\?\\C:\\ws\\..\\secret"), Inside::kUnknown);
  // [FPF] "/" is not a separator after "\\?\": the name holds a '/' (no normalisation).
  EXPECT_EQ(open_target("\\\\?\\C:\\ws/x", test_env()).parts, (std::vector<std::string>{"WS/X"}));
  // [PZ] CreateFileW passes "\??\C:\x" through as an NT path: it opens C:\x (GetFullPathNameW disagrees).
  EXPECT_EQ(in_ws("\\??\\C:\\ws\\f"), Inside::kInside);
  EXPECT_EQ(in_ws("\\??\\C:\\secret"), Inside::kOutside);
}

TEST(WinPathObject, UncLoopback) {
  // [FPF] "UNC paths": "\\system07\C$\" is the root of C: on system07; for this machine's own
  // names (localhost, 127.0.0.1) the administrative share C$ is the local C: [FSH].
  EXPECT_EQ(in_ws("\\\\localhost\\C$\\ws\\f"), Inside::kInside);
  EXPECT_EQ(in_ws("\\\\127.0.0.1\\c$\\secret"), Inside::kOutside);
  // [FPF] "\\?\UNC\Server\Share\Test\Foo.txt" is the device form of a UNC path.
  EXPECT_EQ(in_ws("\\\\?\\UNC\\localhost\\C$\\ws\\f"), Inside::kInside);
  EXPECT_EQ(in_ws("\\\\.\\UNC\\LOCALHOST\\C$\\ws\\..\\secret"), Inside::kOutside);
  // [FPF] another machine's share is another volume.
  EXPECT_EQ(open_target("\\\\Server2\\Share\\Test\\Foo.txt", test_env()).kind, breakout::winpath::Kind::kRemote);
  // A loopback share other than X$ maps to whatever directory the share defines: unknown.
  EXPECT_EQ(in_ws("\\\\localhost\\data\\f"), Inside::kUnknown);
}

TEST(WinPathObject, AlternateDataStreams) {
  // [FST] "file::$DATA" is the file's unnamed (default) data stream: the same object as "file".
  const Object d = open_target("C:\\ws\\f::$DATA", test_env());
  EXPECT_EQ(d.parts, (std::vector<std::string>{"WS", "F"}));
  EXPECT_EQ(d.stream, "");
  // [FST] "file:name" is a named stream of that file (inside the root with it).
  const Object s = open_target("C:\\ws\\f:hidden", test_env());
  EXPECT_EQ(s.stream, "HIDDEN");
  EXPECT_EQ(in_ws("C:\\ws\\f:hidden:$DATA"), Inside::kInside);
  // [FST] "dir::$INDEX_ALLOCATION" is the directory's index: the directory itself.
  EXPECT_EQ(open_target("C:\\ws\\d::$INDEX_ALLOCATION", test_env()).stream, "$INDEX_ALLOCATION");
  // [NAF] ':' is reserved in names: in a directory component the open fails.
  EXPECT_EQ(open_target("C:\\ws\\d:x\\f", test_env()).kind, breakout::winpath::Kind::kNothing);
}

TEST(WinPathObject, DosDeviceNames) {
  // [NAF] reserved names "CON, PRN, AUX, NUL, COM1 ... COM9, COM¹, COM², COM³, LPT1 ... LPT9,
  // LPT¹, LPT², and LPT³ ... NUL.txt and NUL.tar.gz are both equivalent to NUL".
  for (const char* name : {"CON", "prn", "AUX", "NUL.txt", "NUL.tar.gz", "COM1", "lpt9", "COM\xc2\xb9", "LPT\xc2\xb3.log"})
    EXPECT_NE(dos_device(name), "") << name;
  // [PZ] RtlIsDosDeviceName_U ignores trailing spaces and a ':' suffix; CONIN$/CONOUT$ are devices too.
  EXPECT_EQ(dos_device("NUL  "), "NUL");
  EXPECT_EQ(dos_device("COM2:"), "COM2");
  EXPECT_EQ(dos_device("CONIN$"), "CONIN$");
  // [NAF] only the digits 1-9 and the superscripts: COM0 (before Windows 11's list), COM10, CONX are names.
  EXPECT_EQ(dos_device("COM10"), "");
  EXPECT_EQ(dos_device("CONX"), "");
  // [FPF] "Handle legacy devices": "the DOS device path for CON.TXT is \\.\CON" — before Windows 11
  // in any directory, so "C:\ws\NUL.txt" is the NUL device, not a file in the root [RUSTSEC-2024-0438].
  const Object dev = open_target("C:\\ws\\nul.txt", test_env());
  EXPECT_EQ(dev.kind, breakout::winpath::Kind::kDevice);
  EXPECT_EQ(dev.volume, "NUL");
  EXPECT_EQ(in_ws("C:\\ws\\COM\xc2\xb9.txt"), Inside::kOutside);
  // [FPF] "Skip normalization": "\\?\C:\ws\NUL" is a file named NUL, not the device.
  EXPECT_EQ(open_target("\\\\?\\C:\\ws\\NUL", test_env()).kind, breakout::winpath::Kind::kFile);
}

TEST(WinPathObject, LongPaths) {
  // [NAF] "Maximum Path Length Limitation": MAX_PATH is 260 characters including the NUL; longer
  // non-verbatim paths fail unless the process opted in to long paths.
  const std::string long_path = "C:\\ws\\" + std::string(300, 'a');
  EXPECT_EQ(open_target(long_path, test_env()).kind, breakout::winpath::Kind::kNothing);
  Env opted = test_env();
  opted.long_paths = true;
  EXPECT_EQ(open_target(long_path, opted).kind, breakout::winpath::Kind::kFile);
  // [NAF] "To specify an extended-length path, use the \\?\ prefix": up to 32,767 characters.
  EXPECT_EQ(in_ws("\\\\?\\" + long_path), Inside::kInside);
}

TEST(WinPathObject, ShortNamesNeedTheVolume) {
  // [NAF] "Short vs. Long Names": a long name may have an 8.3 alias (GetShortPathNameW) that the
  // volume assigns; which long name "WS~1" stands for is the volume's knowledge, not the string's.
  EXPECT_TRUE(may_be_short_name("PROGRA~1"));
  EXPECT_TRUE(may_be_short_name("SECRET~2.TXT"));
  EXPECT_FALSE(may_be_short_name("notes.txt"));
  EXPECT_EQ(in_ws("C:\\WS~1\\f"), Inside::kUnknown);
  // Below the root an alias names an entry of a directory inside the root: inside whatever it aliases.
  EXPECT_EQ(in_ws("C:\\ws\\SUBDIR~1\\f"), Inside::kInside);
  // A different parent settles it: outside whatever the alias stands for.
  EXPECT_EQ(in_ws("D:\\WS~1\\f"), Inside::kOutside);
}

TEST(WinPathObject, RootMustBeALocalDirectory) {
  EXPECT_THROW(within("C:\\ws\\x", "\\\\.\\pipe\\x", test_env()), Error);
}

}  // namespace
