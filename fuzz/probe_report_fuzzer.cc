// Fuzzes probe output (sandboxed side): the report line parses or is kept as an excerpt, and every report escaping leaves no markup.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_check.h"
#include "harness/core/escape.h"
#include "harness/core/text.h"
#include "harness/model/probe_report.h"

using namespace breakout;

namespace {

// No raw markup survives: '<' and '>' never, '&' only as the start of an entity we wrote.
void check_markup_free(const std::string& escaped, const std::string& from) {
  FUZZ_CHECK_MSG(escaped.find_first_of("<>") == std::string::npos, escaped.substr(0, 200));
  for (std::size_t at = escaped.find('&'); at != std::string::npos; at = escaped.find('&', at + 1)) {
    const std::string_view rest = std::string_view(escaped).substr(at);
    bool entity = false;
    for (std::string_view e : {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&apos;"})
      entity = entity || rest.substr(0, e.size()) == e;
    FUZZ_CHECK_MSG(entity, "bare '&' escaping " + printable_excerpt(from, 200));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string out(reinterpret_cast<const char*>(data), size);

  const nlohmann::json report = parse_probe_report(out);
  if (out.find("BREAKOUT-REPORT ") == std::string::npos) FUZZ_CHECK(report.is_null());
  if (report.is_object() && report.contains("unparsed") && report.size() == 1 && report["unparsed"].is_string())
    FUZZ_CHECK(fuzz::is_printable(report["unparsed"].get<std::string>()));
  // The report lands in results.json and the HTML report: it must serialise.
  const std::string dumped = report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  check_markup_free(html_escape(dumped), dumped);

  for (const std::size_t max : {std::size_t{16}, std::size_t{1024}}) {  // a cut, and (mostly) no cut
    const std::string ex = printable_excerpt(out, max);
    FUZZ_CHECK(fuzz::is_printable(ex));
    FUZZ_CHECK(ex.size() <= 4 * max + 64);  // "\xNN" per byte, plus the "...[N more bytes]" note
    if (out.size() <= max) FUZZ_CHECK(ex.find("more bytes]") == std::string::npos || out.find("more bytes]") != std::string::npos);
    check_markup_free(xml_escape(ex), out);
  }
  const std::string html = html_escape(out);
  check_markup_free(html, out);
  FUZZ_CHECK(html.find_first_of("\"'") == std::string::npos);  // attribute-safe
  const std::string md = markdown_escape(out);
  check_markup_free(md, out);
  // One line, and no '|' that could end a table cell: each is escaped.
  FUZZ_CHECK(md.find_first_of("\n\r") == std::string::npos);
  for (std::size_t at = md.find('|'); at != std::string::npos; at = md.find('|', at + 1))
    FUZZ_CHECK(at > 0 && md[at - 1] == '\\');
  return 0;
}
