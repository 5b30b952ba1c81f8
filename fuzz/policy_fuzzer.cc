// Fuzzes policy files (user input): parse_policy_text must accept or refuse with "[code]", and what it accepts re-serialises to itself.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz/fuzz_check.h"
#include "harness/core/env_block.h"
#include "harness/core/toml_emit.h"
#include "harness/model/policy.h"

using namespace breakout;

namespace {

std::string quoted(const std::string& s) { return toml_quoted(s); }
std::string array(const std::vector<std::string>& v) { return toml_array(v); }

// The policy written back as TOML, every field explicit (deny_read too, so the default list round-trips).
std::string to_toml(const Policy& p) {
  std::string t = "name = " + quoted(p.name) + "\ndescription = " + quoted(p.description) +
                  "\nwritable_roots = " + array(p.writable_roots) + "\ndeny_read = " + array(p.deny_read) +
                  "\nnetwork = " + quoted(to_string(p.network)) + "\ntimeout_ms = " +
                  (p.timeout ? std::to_string(p.timeout->count()) : "\"none\"") + "\n[env]\ninherit = " +
                  array(p.env.inherit) + "\n[env.pinned]\n";
  for (const auto& [k, v] : p.env.pinned) t += quoted(k) + " = " + quoted(v) + "\n";
  return t;
}

bool same(const Policy& a, const Policy& b) {
  return a.name == b.name && a.description == b.description && a.writable_roots == b.writable_roots &&
         a.deny_read == b.deny_read && a.network == b.network && a.env.inherit == b.env.inherit &&
         a.env.pinned == b.env.pinned && a.timeout == b.timeout;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Policy p;
  try {
    p = parse_policy_text(text, "fuzz.toml");
  } catch (const Error& e) {
    FUZZ_EXPECT_CODED(e);
    return 0;
  }
  FUZZ_CHECK(!p.name.empty() && !p.description.empty());
  FUZZ_CHECK(!p.timeout || p.timeout->count() > 0);

  // Accepted paths resolve on any tree: workspace first, everything absolute and normal.
  const TreeRoots roots{"/r", "/r/workspace", "/r/sibling", "/r/home", "/r/extra"};
  const ResolvedPolicy r = resolve(p, roots);
  FUZZ_CHECK(!r.writable.empty() && r.writable[0] == roots.workspace);
  FUZZ_CHECK(r.writable.size() == p.writable_roots.size() + 1 && r.deny_read.size() == p.deny_read.size());
  for (const auto* list : {&r.writable, &r.deny_read})
    for (const auto& path : *list) FUZZ_CHECK_MSG(path.is_absolute(), path.string());

  // Variable names the policy passes or pins must be names a child can be given:
  // "A=B" pinned would reach the child as variable A (environ(7)).
  env_block::Entries pinned(p.env.pinned.begin(), p.env.pinned.end());
  for (const auto& name : p.env.inherit) pinned.emplace_back(name, "");
  try {
    (void)env_block::encode_posix(pinned);
  } catch (const Error& e) {
    FUZZ_CHECK_MSG(false, e.what());
  }

  const std::string again = to_toml(p);
  Policy q;
  try {
    q = parse_policy_text(again, "fuzz-again.toml");
  } catch (const Error& e) {
    FUZZ_CHECK_MSG(false, std::string(e.what()) + "\n" + again);
  }
  FUZZ_CHECK_MSG(same(p, q), again);
  return 0;
}
