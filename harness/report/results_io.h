// Reading results.json back (merge, diff, baseline, report, history all start from a results file).
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/attempt/record.h"
#include "harness/report/results.h"

namespace breakout {

struct Results {
  RunInfo info;
  std::vector<AttemptRecord> records;
  bool interrupted = false;  // top-level "interrupted": true: a run stopped by SIGINT/SIGTERM, judged in part
};

// Accepts a results.json path or a directory holding one; throws Error on a
// missing file, bad JSON or another schema.
Results load_results(const std::filesystem::path& path);

// The inverse of results_json(): what merge needs to write the files again.
Results results_from_json(const nlohmann::json& j);

}  // namespace breakout
