// breakout-probe-env-dump: shows the environment the sandbox handed the probe.
//
//   breakout-probe-env-dump
//
// The report carries "env": {NAME: value, ...} in environ order (JSON-escaped,
// see report.h), so the harness's canary oracle can tell which planted
// variables leaked. A name seen twice keeps its first value (what getenv
// returns) and is listed in "env_duplicates". An entry without '=' is reported
// under its whole text with an empty value. "env_count" counts all entries.
// Bound: "env" and "env_duplicates" together take at most 256 KiB of JSON; an
// entry that does not fit in what is left is skipped (smaller later ones may
// still fit), then "env_truncated" is true and "env_dropped" counts the skipped.
// Result: always ok=true. Exit: 0, 64 usage error.
//
// Windows: the block comes from GetEnvironmentStringsW, not the C runtime's
// narrow _environ (which goes through the ANSI code page and loses what it
// cannot map), converted to WTF-8 so an unpaired surrogate survives; a name may
// begin with '=' there (the per-drive "=C:=C:\dir" entries, Microsoft Learn
// "Changing Environment Variables"), so the separator is the first '=' after
// the first character.
//
// Portable: Linux and Windows (mingw-w64).
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "probes/common/args.h"
#include "probes/common/report.h"

#ifdef _WIN32
#include "harness/core/wtf8.h"
#include "probes/common/win32.h"
#else
extern char** environ;
#endif

using namespace breakout::probe;

namespace {
constexpr char kUsage[] = "usage: breakout-probe-env-dump\n";
constexpr std::size_t kMaxJson = 256u << 10;

#ifdef _WIN32
std::vector<std::string> environment_entries() {
  std::vector<std::string> out;
  wchar_t* block = ::GetEnvironmentStringsW();
  if (!block) return out;
  for (const wchar_t* e = block; *e; e += std::char_traits<wchar_t>::length(e) + 1) {
    const std::u16string_view entry(reinterpret_cast<const char16_t*>(e), std::char_traits<wchar_t>::length(e));
    out.push_back(breakout::wtf8_from_utf16(entry));
  }
  ::FreeEnvironmentStringsW(block);
  return out;
}
constexpr std::size_t kNameSearchFrom = 1;  // "=C:=C:\dir": the name is "=C:"
#else
std::vector<std::string> environment_entries() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}
constexpr std::size_t kNameSearchFrom = 0;
#endif
}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {});
  ProbeReport r("env-dump");
  JsonObject env;
  JsonArray duplicates;
  std::set<std::string> seen;
  std::size_t count = 0;
  std::size_t dropped = 0;
  std::size_t env_bytes = 2;  // "{}"
  for (const std::string& text : environment_entries()) {
    ++count;
    const std::string_view entry(text);
    const auto eq = entry.size() > kNameSearchFrom ? entry.find('=', kNameSearchFrom) : std::string_view::npos;
    const std::string name(entry.substr(0, eq));
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : entry.substr(eq + 1);
    if (!seen.insert(name).second) {
      const std::size_t cost = json_quote(name).size() + 1;
      if (env_bytes + cost > kMaxJson) {
        ++dropped;
      } else {
        env_bytes += cost;  // the same budget: a flood of duplicates is bounded too
        duplicates.add(name);
      }
      continue;
    }
    std::string quoted = json_quote(value);
    const std::size_t cost = json_quote(name).size() + quoted.size() + 2;  // "k":v,
    if (env_bytes + cost > kMaxJson) {
      ++dropped;  // too big for what is left: skip it, smaller ones may still fit
      continue;
    }
    env_bytes += cost;
    env.set_raw(name, std::move(quoted));
  }
  r.succeed();
  r.set("env_count", static_cast<unsigned long long>(count));
  r.set("env_truncated", dropped > 0);
  if (dropped > 0) r.set("env_dropped", static_cast<unsigned long long>(dropped));
  if (duplicates.count() > 0) r.set_raw("env_duplicates", duplicates.str());
  r.set_raw("env", env.str());
  r.emit();
  return 0;
}
