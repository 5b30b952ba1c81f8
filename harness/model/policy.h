// The policy model: what a sandbox must allow and deny. Expectations are computed from it.
//
// Paths in a policy are symbolic so one policy fits every attempt's fresh tree:
// "~/x" is the attempt's fake HOME, "workspace", "sibling/x", "extra" are
// directories of the attempt tree (paths/attempt_tree.h); absolute paths stay as they are.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace breakout {

enum class NetworkMode {
  kNone,      // no connect succeeds anywhere (a fresh empty netns is this)
  kLoopback,  // the HOST's loopback services are reachable, nothing else
  kFull,      // everything
  // Egress only through the sandbox's own allowlisting proxy (srt's HTTP/SOCKS proxies): the
  // harness owns an allowed and a denied destination (net:proxy-allowed, net:proxy-denied) and
  // hands the spawner the allowed one; a direct connect reaches nothing outside, not even it.
  kProxy,
};
const char* to_string(NetworkMode m);

struct EnvPolicy {
  std::vector<std::string> inherit;            // caller variables passed through, exact names
  std::map<std::string, std::string> pinned;   // values the spawner sets and the caller cannot override
};

struct Policy {
  std::string name;
  std::string description;
  std::vector<std::string> writable_roots;  // besides the workspace, which is always writable
  std::vector<std::string> deny_read;
  // Protected paths: not writable even inside a writable root (deny wins), like the
  // .git/hooks, .codex or .mcp.json that agent sandboxes protect (Codex
  // WritableRoot read_only_subpaths; sandbox-runtime mandatory-deny-paths.test.ts).
  std::vector<std::string> deny_write;
  NetworkMode network = NetworkMode::kNone;
  EnvPolicy env;
  std::optional<std::chrono::milliseconds> timeout;  // nullopt: no timeout
};

// Default deny-read list: the usual secret stores under HOME.
const std::vector<std::string>& default_deny_read();

// Parses a policy file; throws Error("[<code>] <file>: ...") on schema violations.
Policy load_policy_file(const std::filesystem::path& file);
Policy parse_policy_text(const std::string& text, const std::string& origin);

// Policy paths resolved against one attempt tree.
struct TreeRoots {
  std::filesystem::path tree, workspace, sibling, home, extra;
};
struct ResolvedPolicy {
  std::vector<std::filesystem::path> writable;   // workspace first
  std::vector<std::filesystem::path> deny_read;
  std::vector<std::filesystem::path> deny_write;
};
std::filesystem::path resolve_policy_path(const std::string& symbolic, const TreeRoots& roots);
ResolvedPolicy resolve(const Policy& policy, const TreeRoots& roots);
// True when `p` equals p.lexically_normal() (what resolve_policy_path returns always is).
bool is_lexically_normal(const std::filesystem::path& p);

// True when `p` is `root` or lies below it (lexical, both absolute and normalised).
bool path_within(const std::filesystem::path& p, const std::filesystem::path& root);

// The entry of `list` that `p` spells in another ASCII letter case (what names it where the file
// system folds case), nullptr when `p` lies within an entry as spelled, or within none.
const std::filesystem::path* case_variant_of(const std::filesystem::path& p,
                                             const std::vector<std::filesystem::path>& list);

}  // namespace breakout
