// Fuzzes the expectation model with random valid policies: deny_read wins, writes follow the writable roots, and template expansion keeps every path and value one argv element.
//
// Policies are built from bytes, not parsed (policy_fuzzer covers the TOML):
// overlapping writable roots, deny-read entries inside writable roots, paths
// with spaces, quotes, '$', newlines, leading dashes and placeholder text, a
// workspace equal to HOME or containing it, empty lists.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "harness/core/text.h"
#include "harness/paths/byte_reader.h"
#include "harness/paths/classify.h"
#include "harness/spawner/template_spawner.h"

using namespace breakout;
using namespace breakout::paths;
namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefixes[] = {"~", "workspace", "sibling", "extra", "parent", "/elsewhere"};
// Argument-injection material: a leading dash, spaces, quotes, '$', a newline, placeholder text.
constexpr const char* kNames[] = {"a", "-rf", "--bind", "sp ace", "q'\"", "$HOME", "new\nline", "{home}",
                                  "{path}", ".ssh", "..", ".", "x y"};

std::string symbolic(ByteReader& in) {
  std::string p = kPrefixes[in.pick(std::size(kPrefixes))];
  for (std::size_t i = 0, n = in.pick(3); i < n; ++i) (p += '/') += kNames[in.pick(std::size(kNames))];
  return p;
}

TreeRoots roots_for(std::uint8_t how) {
  TreeRoots r = placeholder_roots();
  if (how % 4 == 1) r.home = r.workspace;                 // the workspace is HOME
  else if (how % 4 == 2) r.home = r.workspace / "home";   // the workspace contains HOME
  else if (how % 4 == 3) r.workspace = r.home / "ws";     // HOME contains the workspace
  return r;
}

// Targets checked in every input, each with an awkward tail.
constexpr const char* kUsual[] = {"~/.ssh/id_ed25519", "workspace/x", "sibling/notes.txt", "extra/x", "parent/x"};

// One spawn request per tree layout, built once: each input sets its policy and resolved
// lists (copying the roots, the probe argv and the cwd per input was a tenth of its allocations).
// The usual targets are resolved on its roots once too: the same paths in every input.
struct Layout {
  SpawnRequest request;
  std::array<fs::path, std::size(kUsual)> usual;
};

Layout& layout_for(std::uint8_t how) {
  static std::array<Layout, 4> layouts = [] {
    std::array<Layout, 4> all;
    for (std::uint8_t i = 0; i < all.size(); ++i) {
      SpawnRequest& req = all[i].request;
      req.roots = roots_for(i);
      req.probe_argv = {"/probes/breakout-probe-fs", "--", "{home}"};
      req.cwd = req.roots.workspace.string();
      for (std::size_t t = 0; t < std::size(kUsual); ++t) all[i].usual[t] = resolve_policy_path(kUsual[t], req.roots);
    }
    return all;
  }();
  return layouts[how % 4];
}

const Profile& profile() {
  static const Profile p = parse_profile_text(R"toml(
name = "fuzz"
description = "bwrap's lists (spawners/bwrap.toml)"
requires = ["tool"]
version = ["tool", "--version"]
command = ["tool", "{writable...}", "{deny_read...}", "{env_set...}", "--chdir", "{cwd}", "--", "{argv...}"]
writable_root = ["--bind", "{path}", "{path}"]
deny_read_dir = ["--tmpfs", "{path}"]
deny_read_file = ["--ro-bind", "/dev/null", "{path}"]
env_set = ["--setenv", "{name}", "{value}"]
env_unset = []
network = { none = [] }
)toml", "policy_model_fuzzer");
  return p;
}

bool under_any(const fs::path& p, const std::vector<fs::path>& roots) {
  return std::any_of(roots.begin(), roots.end(), [&](const fs::path& r) { return path_within(p, r); });
}

bool has_run(const std::vector<std::string>& argv, std::initializer_list<std::string_view> run) {
  return std::search(argv.begin(), argv.end(), run.begin(), run.end()) != argv.end();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  Layout& layout = layout_for(in.byte());
  SpawnRequest& req = layout.request;
  const TreeRoots& roots = req.roots;
  // The request outlives the input, so it must not keep this input's allocations: libFuzzer
  // re-runs every input that mallocs more than it frees to look for a leak (-detect_leaks),
  // and a resolved list longer than the last one's was that ~11 % of the CPU (perf).
  struct Release {
    SpawnRequest& req;
    ~Release() {
      req.policy = nullptr;
      req.resolved = ResolvedPolicy{};
    }
  } release{req};
  Policy p;
  p.name = "fuzz";
  for (auto* list : {&p.writable_roots, &p.deny_read}) {
    list->resize(in.pick(4));
    for (auto& entry : *list) entry = symbolic(in);
  }
  for (std::size_t i = 0, n = in.pick(3); i < n; ++i) p.env.pinned[kNames[in.pick(std::size(kNames))]] = kNames[in.pick(std::size(kNames))];
  req.policy = &p;
  req.resolved = resolve(p, roots);
  const ResolvedPolicy& r = req.resolved;

  // Targets: the usual ones, and below every entry with an awkward tail. `path` is `t` resolved.
  const auto check_target = [&](std::string_view t, const fs::path& path) {
    const Classified c = classify(path, "", r, roots);  // the policy resolved once, above
    // Built only when a check fails (FUZZ_CHECK_MSG evaluates its detail lazily): per target it cost more than the checks.
    const auto what = [&] { return "'" + printable_excerpt(t, 200) + "' region " + to_string(c.region); };
    // Deny wins: under a deny_read entry nothing is readable, inside a writable root or not.
    FUZZ_CHECK_MSG((c.read == Expected::kDenied) == under_any(path, r.deny_read), what());
    FUZZ_CHECK_MSG((c.write == Expected::kAllowed) == under_any(path, r.writable), what());
    FUZZ_CHECK_MSG((c.region == Region::kDenyRead) == (c.read == Expected::kDenied), what());
    if (c.region == Region::kWorkspace || c.region == Region::kWritableRoot) FUZZ_CHECK_MSG(c.write == Expected::kAllowed, what());
  };
  for (std::size_t t = 0; t < std::size(kUsual); ++t) check_target(kUsual[t], layout.usual[t]);
  std::string below;  // one buffer for the targets below each entry ("a + b + c" allocated twice per target)
  for (const auto* list : {&p.writable_roots, &p.deny_read})
    for (const auto& entry : *list) {
      below.assign(entry).append("/").append(kNames[in.pick(std::size(kNames))]);
      check_target(below, resolve_policy_path(below, roots));
    }

  // Template expansion: each path and value stays one argv element, never re-expanded.
  const std::vector<std::string> argv = expand_profile(profile(), req);
  for (const auto& w : r.writable) FUZZ_CHECK_MSG(has_run(argv, {"--bind", w.native(), w.native()}), printable_excerpt(w.string(), 200));
  for (const auto& [name, value] : p.env.pinned) FUZZ_CHECK_MSG(has_run(argv, {"--setenv", name, value}), printable_excerpt(name, 80));
  FUZZ_CHECK(has_run(argv, {"--", "/probes/breakout-probe-fs", "--", "{home}"}));
  // Deny entries that exist add their own elements (those under '..' may: "parent/../.." is "/").
  FUZZ_CHECK(argv.size() >= 1 + 3 * r.writable.size() + 3 * p.env.pinned.size() + 3 + 3);
  return 0;
}
