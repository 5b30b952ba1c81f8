// The in-run witness of a denial whose control needs a mechanism the spawner refuses
// (model/mechanism.h): with AF_UNIX refused, nothing shows that the connect probe worked, so
// the probe leaves its report line in the workspace after its attempt (`--witness PATH`,
// probes/common/report.h) and the host looks for that file. Present: the probe ran and got
// past its attempt, so a nonce that no listener received was refused, not lost. Absent: the
// denial proves nothing (error). The file's text is the probe's word, displayed only.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace breakout {

struct WitnessSeen {
  bool present = false;
  nlohmann::json evidence;  // {"path", "present", "report"} for results.json
  std::string problem;      // why it does not count, when !present
};

// What the host finds at `path`: a regular file (never followed through a link: the sandboxed
// side may plant one), at most 4 KiB of it shown.
WitnessSeen look_for_witness(const std::filesystem::path& path);

}  // namespace breakout
