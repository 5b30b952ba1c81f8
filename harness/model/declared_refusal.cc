// Declared refusals, checked and applied once for template profiles and drivers alike.
#include "harness/model/declared_refusal.h"

#include <algorithm>

#include "harness/core/text.h"

namespace breakout {

namespace {
constexpr std::string_view kKeys[] = {"when", "why"};
constexpr std::string_view kModes[] = {"none", "loopback", "full", "proxy"};
}  // namespace

bool is_refusal_key(std::string_view key) { return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys); }

const char* refusal_keys() { return "when, why"; }

std::optional<RefusalProblem> check_refusal(const std::string& mechanism, const DeclaredRefusal& r) {
  if (!mechanism_from(mechanism))
    return RefusalProblem{"bad-mechanism", "", "unknown mechanism (known: " + mechanism_names() + ")"};
  if (r.why.empty()) return RefusalProblem{"bad-value", "", "why must say why the sandbox refuses it"};
  if (r.why.size() > kMaxRefusalWhy)
    return RefusalProblem{"bad-value", "", "why is longer than " + std::to_string(kMaxRefusalWhy) + " bytes"};
  if (r.when.size() > kMaxRefusalWhen)
    return RefusalProblem{"bad-value", ".when", "lists more than " + std::to_string(kMaxRefusalWhen) + " network modes"};
  for (const auto& mode : r.when)
    if (std::find(std::begin(kModes), std::end(kModes), mode) == std::end(kModes))
      return RefusalProblem{"bad-value", ".when", "unknown network mode '" + printable_excerpt(mode, 64) + "'"};
  return std::nullopt;
}

std::optional<std::string> refusal_reason(const DeclaredRefusals& declared, const std::string& spawner, Mechanism m,
                                          NetworkMode network) {
  const auto it = declared.find(to_string(m));
  if (it == declared.end()) return std::nullopt;
  const auto& when = it->second.when;
  if (!when.empty() && std::find(when.begin(), when.end(), to_string(network)) == when.end()) return std::nullopt;
  return spawner + " refuses " + to_string(m) + " under network = " + to_string(network) + ": " + it->second.why;
}

}  // namespace breakout
