// Declared refusals: a kernel mechanism a sandbox refuses whatever the policy says (mechanism.h),
// as a template profile's [refuses.<mechanism>] tables and a driver's hello `refuses` declare it.
//
// One vocabulary and one set of checks for both (docs/spawners.md, docs/drivers.md): each parser
// reads its own format's types, then hands the entry to check_refusal; both spawner kinds answer
// Spawner::refuses with refusal_reason.
//
//   if (auto p = check_refusal("icmp", r)) throw Error(p->code, p->message);
//   return refusal_reason(declared, name(), Mechanism::kIcmp, policy.network);
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/mechanism.h"
#include "harness/model/policy.h"

namespace breakout {

struct DeclaredRefusal {
  std::vector<std::string> when;  // network mode names; empty: every mode
  std::string why;                // required: why the sandbox refuses it
};
using DeclaredRefusals = std::map<std::string, DeclaredRefusal>;  // by mechanism name ("af_unix")

inline constexpr std::size_t kMaxRefusalWhy = 1024;  // bytes of `why`
inline constexpr std::size_t kMaxRefusalWhen = 4;    // entries of `when` (there are four modes)

// The keys an entry may have ("when", "why"): anything else is an error in both formats.
bool is_refusal_key(std::string_view key);
const char* refusal_keys();  // "when, why", for messages

struct RefusalProblem {
  std::string code;     // a schema code: bad-mechanism, bad-value
  std::string where;    // "" or ".when"
  std::string message;  // plain, names what was wrong
};

// The checks both formats share once their types are read: a known mechanism, a non-empty
// and bounded `why`, known network modes in `when`. nullopt: the entry is valid.
std::optional<RefusalProblem> check_refusal(const std::string& mechanism, const DeclaredRefusal& r);

// Why `spawner` refuses `m` under `network`, when `declared` says so; nullopt otherwise.
std::optional<std::string> refusal_reason(const DeclaredRefusals& declared, const std::string& spawner, Mechanism m,
                                          NetworkMode network);

}  // namespace breakout
