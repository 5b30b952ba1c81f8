// Environment blocks, both ways: POSIX envp / environ bytes and the Windows UTF-16 block.
//
// Entries keep their order and their duplicates: a child can be handed "PATH"
// twice (or "Path" and "PATH" on Windows), and which one it sees is exactly what
// the env-pinned attempts test. Names and values are bytes on POSIX and WTF-8
// (core/wtf8.h) for Windows, so hostile blocks decode losslessly.
//   auto block = env_block::encode_windows({{"Path", "C:\\bin"}, {"=C:", "C:\\ws"}});
//   auto back  = env_block::decode_windows(block);   // sorted: "=C:" first
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace breakout::env_block {

using Entry = std::pair<std::string, std::string>;  // name, value
using Entries = std::vector<Entry>;

// --- POSIX: execve(2) envp strings and /proc/<pid>/environ bytes ---------------
// A name is non-empty and holds no '=' (the first '=' ends it, environ(7)); no NUL anywhere.
// Encoders throw Error("bad-env-name", "...") / ("[bad-env-value] ...").
std::vector<std::string> encode_posix(const Entries& entries);
// Splits each string at its first '='; "[bad-env-entry]" for one without '=' or with an empty name.
Entries decode_posix(const std::vector<std::string>& envp);
// Every entry followed by one NUL, as /proc/<pid>/environ reads.
std::string encode_environ(const Entries& entries);
// "[bad-env-block]" when the bytes do not end in NUL, or an entry is malformed as above.
Entries decode_environ(std::string_view bytes);
// The first entry named exactly `name` (glibc getenv scans front to back), or null.
const std::string* find_posix(const Entries& entries, std::string_view name);

// --- Windows: CreateProcessW lpEnvironment with CREATE_UNICODE_ENVIRONMENT ------
// "name=value\0" strings, then one more NUL. A name is non-empty and holds no '='
// after its first character: the per-drive current directories are named "=C:"
// (The Old New Thing, "What are these strange =C: environment variables?", 2010).
// encode_windows stable-sorts by name, case-insensitively, in UTF-16 code-unit
// order, as the CreateProcessW/"Changing Environment Variables" docs require
// ("sorted alphabetically by name, case-insensitive, Unicode order, without regard
// to locale"). Case folding here is ASCII only: non-ASCII letters compare by code unit.
std::u16string encode_windows(const Entries& entries);  // WTF-8 in; "[bad-wtf8]", "[bad-env-name]", "[bad-env-value]"
// Entries in block order. Accepts the empty block as one or two NULs;
// "[bad-env-block]" for a missing terminator, data after it, or an entry without '='.
Entries decode_windows(std::u16string_view block);
// Case-insensitive name order used by encode_windows; stable sort with it.
bool windows_name_less(std::string_view a, std::string_view b);
void sort_windows(Entries& entries);
// The first entry whose name matches case-insensitively (names are case-insensitive on Windows), or null.
const std::string* find_windows(const Entries& entries, std::string_view name);

// The block as CreateProcessW reads it in memory (UTF-16LE), and back; "[bad-env-block]" for an odd length.
std::string windows_block_bytes(std::u16string_view block);
std::u16string windows_block_from_bytes(std::string_view bytes);

}  // namespace breakout::env_block
