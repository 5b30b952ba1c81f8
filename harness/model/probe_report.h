// The probe's own report line (probes/common/report.h writes it), parsed for display and for the excuses.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace breakout {

// The probe's own report line ("BREAKOUT-REPORT {json}") from the tail of its
// stdout; null when absent, {"unparsed": excerpt} when not JSON. Display only.
nlohmann::json parse_probe_report(const std::string& out);

}  // namespace breakout
