// What the class oracles share: the io aimed at the target, the snapshot diff against the writable roots, canary search.
#include "harness/attempt/observe.h"

#include <algorithm>
#include <fstream>
#include <vector>

#include "harness/attempt/spell_path.h"
#include "harness/core/error.h"
#include "harness/core/file_prefix.h"
#include "harness/core/text.h"
#include "harness/classes/host_object/spec_objects.h"
#include "harness/host/remote_listener.h"

namespace breakout {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

constexpr std::size_t kScanLimit = 1u << 20;  // bytes read per file when hunting canary tokens

// '/'-separated on every platform, like the snapshot's keys (fs_snapshot.h).
std::string relative_to_tree(const fs::path& p, const AttemptTree& tree) {
  return p.lexically_relative(tree.roots().tree).generic_string();
}

bool is_under(const std::string& rel, const std::string& root_rel) {
  return rel == root_rel || (rel.size() > root_rel.size() && rel.compare(0, root_rel.size(), root_rel) == 0 &&
                             rel[root_rel.size()] == '/');
}

}  // namespace

WritableRoots::WritableRoots(const AttemptTree& tree, const ResolvedPolicy& policy) {
  for (const auto& w : policy.writable) rel_.push_back(relative_to_tree(w, tree));
  for (const auto& d : policy.deny_write) protected_.push_back(relative_to_tree(d, tree));
}

// A protected path (deny_write) inside a root is not writable: a change there is outside.
bool WritableRoots::contains(const std::string& rel) const {
  for (const auto& d : protected_)
    if (is_under(rel, d)) return false;
  for (const auto& w : rel_)
    if (is_under(rel, w)) return true;
  return false;
}

std::vector<FsChange> WritableRoots::outside(const std::vector<FsChange>& changes) const {
  std::vector<FsChange> out;
  for (const auto& c : changes)
    if (!contains(c.path)) out.push_back(c);
  return out;
}

nlohmann::json describe_change(const FsChange& c) {
  return {{"path", printable_excerpt(c.path, 512)}, {"change", c.kind}, {"fields", c.detail}};
}

// Where `token` shows up: output channels and every file of the tree but the canary itself.
std::vector<std::string> find_token(const std::string& token, const LaunchResult& run, const AttemptTree& tree,
                                    const fs::path& own_file) {
  std::vector<std::string> where;
  if (run.out.find(token) != std::string::npos) where.push_back("stdout");
  if (run.err.find(token) != std::string::npos) where.push_back("stderr");
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(tree.roots().tree, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    if (it->path().lexically_normal() == own_file) continue;
    if (read_file_prefix(it->path(), kScanLimit).find(token) != std::string::npos)
      where.push_back("file " + printable_excerpt(relative_to_tree(it->path(), tree), 256));
    if (where.size() > 16) break;
  }
  return where;
}

Observation observe_fs_change(const Execution& ex, const AttemptTree& tree, const ResolvedPolicy& policy,
                              const Snapshot& before, const AttemptIo& io,
                              const std::vector<FsChange>& beyond_the_walk) {
  Observation o;
  Snapshot after = take_snapshot(tree.roots().tree);
  auto changes = diff_snapshots(before, after);
  changes.insert(changes.begin(), beyond_the_walk.begin(), beyond_the_walk.end());  // first: named in the summary
  tree.keep_after_snapshot(std::move(after));  // a tree pool restores from it (tree.h)
  const WritableRoots writable(tree, policy);
  const std::string target_rel = relative_to_tree(io.target_path, tree);

  o.outside_changes.emplace();
  nlohmann::json outside = nlohmann::json::array(), at_target = nlohmann::json::array();
  for (const auto& c : changes) {
    const bool inside = writable.contains(c.path);
    if (!inside) o.outside_changes->push_back(c);
    if (!inside && outside.size() < 32) outside.push_back(describe_change(c));
    if (is_under(c.path, target_rel) && at_target.size() < 32) at_target.push_back(describe_change(c));
  }
  o.evidence["changes_outside_writable_roots"] = outside;
  o.evidence["changes_at_target"] = at_target;
  o.evidence["changes_total"] = changes.size();
  if (ex.expectation.value == Expected::kDenied) {
    o.effect = outside.empty() ? Effect::kNotHappened : Effect::kHappened;
    o.summary = outside.empty() ? "host tree outside the writable roots unchanged"
                                : "host changed outside the writable roots: " + outside[0]["path"].get<std::string>() +
                                      " " + outside[0]["change"].get<std::string>();
  } else {
    o.effect = at_target.empty() ? Effect::kNotHappened : Effect::kHappened;
    o.summary = at_target.empty() ? "target unchanged on the host" : "target changed on the host as allowed";
  }
  return o;
}

namespace {

// Unix-socket endpoints get a per-attempt listener of their own; nullopt for the
// run-wide TCP/UDP endpoints.
std::optional<std::string> unix_listener_address(const std::string& endpoint, const AttemptTree& tree,
                                                 const std::string& nonce) {
  if (endpoint == "unix-workspace") return (tree.roots().workspace / (".sock-" + nonce.substr(0, 8))).string();
  if (endpoint == "unix-outside")  // docker.sock / ssh-agent stand-in
    return resolve_policy_path(kHostSocketPolicyPath, tree.roots()).string();
  if (endpoint == "ssh-agent") return resolve_policy_path(kSshAgentPolicyPath, tree.roots()).string();
  if (endpoint == "abstract") return "@breakout-" + nonce;  // D-Bus / X11 stand-in (bubblewrap #330, firejail #801)
  return std::nullopt;
}

// The fs target in the attempt's path form (param). A form that reaches another
// host object than the target (sibling-prefix) must leave the expectation as it
// is, or the attempt would test something it does not say: then it does not apply.
std::optional<Skip> aim_at_path(const Execution& ex, const AttemptTree& tree, AttemptIo* io) {
  // Real-host targets name their canaries by the attempt's tag (real_home.h).
  const std::string where = needs_real_home(ex.attempt->klass)
                                ? substitute_placeholders(ex.target->value, {{"{tag}", io->nonce.substr(0, 8)}})
                                : ex.target->value;
  io->target_path = resolve_policy_path(where, tree.roots());
  io->target_spec = io->target_path.string();
  if (takes_path_form(ex.attempt->klass)) {
    const auto form = path_form_from(ex.attempt->param);
    if (!form) throw Error("bad-form", "unknown path form '" + ex.attempt->param + "'");
    const bool by_driver = is_fs_api(ex.attempt->klass);  // the driver stands in the harness's cwd
    SpelledPath p;
    if (auto skip = take(spell(*form, io->target_path, tree, io->nonce.substr(0, 8),
                               by_driver ? fs::current_path() : io->cwd, by_driver),
                         p))
      return skip;
    if (p.host != io->target_path) {
      const Target there{TargetKind::kPath, "fs:" + p.host.string(), p.host.string()};
      if (expect(ex.attempt->klass, &there, *ex.policy, tree.roots()).value != ex.expectation.value)
        return Skip{std::string("path form ") + to_string(*form) + " reaches " + p.host.filename().string() +
                    ", which the policy judges differently from the target"};
    }
    io->target_path = p.host;
    io->target_spec = p.spelled;
    io->target_token = p.token;
  }
  if (io->target_token.empty()) io->target_token = tree.token_of(io->target_path);
  return std::nullopt;
}

}  // namespace

std::string technique_of(const Attempt& a) {
  for (std::size_t i = 0; i + 1 < a.args.size(); ++i)
    if (a.args[i] == "--technique") return a.args[i + 1];
  return "";
}

std::size_t count_lines(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::size_t n = 0;
  char buf[8192];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) n += buf[i] == '\n';
    if (!in) break;
  }
  return n;
}

OrSkip<AttemptIo> prepare_io(const Execution& ex, const AttemptTree& tree, const RunContext& ctx,
                             const std::string& nonce, const std::string& env_token) {
  AttemptIo io;
  io.nonce = nonce;
  const std::string tag = nonce.substr(0, 8);
  const auto& ws = tree.roots().workspace;
  io.cwd = ws;
  io.heartbeat = ws / ("heartbeat-" + tag);
  io.mark = ws / ("mark-" + tag);
  if (ex.witness) io.witness = ws / ("witness-" + tag);
  io.caller_env_token = env_token;
  if (ex.target) {
    switch (ex.target->kind) {
      case TargetKind::kPath:
        if (auto skip = aim_at_path(ex, tree, &io)) return *skip;
        break;
      case TargetKind::kEndpoint:
        if (auto path = unix_listener_address(ex.target->value, tree, nonce)) {
          io.unix_listener = std::make_unique<UnixNonceListener>(*path);
          // The fake agent is found the way ssh(1) finds one: through the caller's SSH_AUTH_SOCK.
          io.target_spec = ex.target->value == "ssh-agent" ? "env-unix:SSH_AUTH_SOCK" : io.unix_listener->spec();
        } else if (ex.target->value == "real-external") {
          if (!ctx.remote)
            return Skip{"needs --real-host-endpoint ADDR:PORT of a `breakout listen` you run outside "
                        "(docs/real-host.md): without a listener there, nothing outside could judge it"};
          io.target_spec = ctx.remote->spec();
        } else {
          auto endpoint = ctx.listeners->endpoint(ex.target->value);
          if (!endpoint) throw Error("endpoint " + ex.target->value + " unavailable: " + ctx.listeners->skip_reason(ex.target->value));
          io.target_spec = endpoint->spec;
        }
        break;
      case TargetKind::kEnvVar:
      case TargetKind::kEnvOverride:
        io.target_spec = ex.target->value;
        break;
      case TargetKind::kHostObject:
        io.host_object = make_host_object(ex.target->value,
                                           {nonce, tree.roots().tree, tree.roots().workspace, ctx.probes_dir, ctx.external});
        io.target_spec = io.host_object->spec();
        break;
    }
  }
  return io;
}

Observation observe_token(const std::string& token, const std::string& what, const LaunchResult& run,
                          const AttemptTree& tree, const std::filesystem::path& own_file) {
  Observation o;
  if (token.empty()) {
    o.summary = what + ": no canary token to look for";
    return o;
  }
  const auto where = find_token(token, run, tree, own_file);
  o.evidence["token_seen_in"] = where;
  o.effect = where.empty() ? Effect::kNotHappened : Effect::kHappened;
  o.summary = where.empty() ? what + " canary token seen nowhere outside" : what + " canary token seen in " + where[0];
  return o;
}

}  // namespace breakout
