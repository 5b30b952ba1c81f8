// The witness file, read from the host side: never through a link, bounded, shown only when it
// is a probe report line.
#include "harness/attempt/witness.h"

#include <fstream>

#include "harness/core/text.h"

namespace breakout {

namespace fs = std::filesystem;

WitnessSeen look_for_witness(const fs::path& path) {
  WitnessSeen w;
  w.evidence = {{"path", printable_excerpt(path.filename().string(), 256)}, {"present", false}};
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec || !fs::exists(st)) {
    w.problem = "the probe left no witness in the workspace, so nothing shows it got past its attempt";
    return w;
  }
  if (!fs::is_regular_file(st)) {
    w.problem = "the witness in the workspace is not a regular file";
    return w;
  }
  w.present = true;
  w.evidence["present"] = true;
  // The sandboxed side could swap in a link after the check: what is shown must look like the
  // probe's own line, so no host file's contents reach the report that way.
  std::ifstream in(path, std::ios::binary);
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.rfind("BREAKOUT-REPORT ", 0) == 0) w.evidence["report"] = printable_excerpt(text, text.size());
  return w;
}

}  // namespace breakout
