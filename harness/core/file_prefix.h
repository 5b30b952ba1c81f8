// The first bytes of a file, bounded: how the harness reads anything the sandboxed side could have
// written or grown (status files, /proc entries, files in the tree), never the whole of it.
//
//   std::string head = read_file_prefix(path, 64 * 1024);   // "" when it cannot be opened
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace breakout {

// At most `limit` bytes from the start of `p`, read in 64 KiB steps (a `limit`-sized buffer up
// front cost more than the read for the tree's many small files). Never throws for I/O: a file that
// cannot be opened or read reads as what was read so far.
std::string read_file_prefix(const std::filesystem::path& p, std::size_t limit);

}  // namespace breakout
