// parse_probe_report: the last "BREAKOUT-REPORT " line of a probe's stdout.
#include "harness/model/probe_report.h"

#include <string_view>

#include "harness/core/text.h"

namespace breakout {

nlohmann::json parse_probe_report(const std::string& out) {
  constexpr std::size_t kReportSearch = 65536;  // the report line is looked for in this tail
  const std::string_view tail =
      out.size() > kReportSearch ? std::string_view(out).substr(out.size() - kReportSearch) : std::string_view(out);
  const std::size_t at = tail.rfind("BREAKOUT-REPORT ");
  if (at == std::string_view::npos) return nullptr;
  std::string_view line = tail.substr(at + 16);
  line = line.substr(0, line.find('\n'));
  try {
    return nlohmann::json::parse(line);
  } catch (const std::exception&) {
    return {{"unparsed", printable_excerpt(line, 1024)}};
  }
}

}  // namespace breakout
