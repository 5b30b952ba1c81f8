// Bounded reads of a file's first bytes.
#include "harness/core/file_prefix.h"

#include <algorithm>
#include <fstream>
#include <vector>

namespace breakout {

std::string read_file_prefix(const std::filesystem::path& p, std::size_t limit) {
  std::ifstream in(p, std::ios::binary);
  std::string data;
  std::vector<char> buf(64 * 1024);
  while (in && data.size() < limit) {
    in.read(buf.data(), static_cast<std::streamsize>(std::min(buf.size(), limit - data.size())));
    data.append(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  return data;
}

}  // namespace breakout
