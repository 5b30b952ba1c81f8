// Building the scene: the tree, the caller's environment, the io, the request and the exec's bounds.
#include "harness/attempt/scene.h"


#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/host/name_server.h"
#include "harness/host/net_listeners.h"
#include "harness/platform/os.h"

namespace breakout {

namespace {

// The canaries are planted before the tree is built around the real HOME.
std::unique_ptr<RealHomeCanaries> real_home_canaries(const Execution& ex, const RunContext& ctx,
                                                     const std::string& nonce) {
  if (!needs_real_home(ex.attempt->klass)) return nullptr;
  check(ctx.real_home.has_value(), "a real-home scene without --real-host (scene_unavailable)");
  return std::make_unique<RealHomeCanaries>(*ctx.real_home, nonce.substr(0, 8));
}

const std::filesystem::path* real_home_of(const Execution& ex, const RunContext& ctx) {
  return needs_real_home(ex.attempt->klass) ? &*ctx.real_home : nullptr;
}

// The caller's environment as a spawner would get it from an agent runtime:
// a fake HOME, and host secrets a policy must not pass on (canaries).
std::map<std::string, std::string> caller_env(const Execution& ex, const AttemptTree& tree, const std::string& nonce,
                                              std::map<std::string, std::string>* tokens) {
  std::map<std::string, std::string> env = caller_base_env(tree.roots().home);  // PATH, HOME (USERPROFILE)
  env["LANG"] = "C.UTF-8";
  env["BREAKOUT_NONCE"] = nonce;
  for (const char* name : {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "BREAKOUT_INHERITED"}) {
    const std::string token = canary_token();
    env[name] = token;
    (*tokens)[name] = token;
  }
  if (ex.target && ex.target->text == "net:ssh-agent")  // the caller's ssh-agent (net:ssh-agent's listener)
    env["SSH_AUTH_SOCK"] = resolve_policy_path(kSshAgentPolicyPath, tree.roots()).string();
  return env;
}

// network = "proxy": the endpoint as its proxy takes it, "198.18.7.2:40123" (its spec without
// "tcp:"); nothing when the run has no such listener (no external host: its attempts skip).
std::vector<std::string> proxy_destination(const RunContext& ctx, const char* endpoint) {
  if (!ctx.listeners) return {};
  const auto e = ctx.listeners->endpoint(endpoint);
  if (!e || e->spec.rfind("tcp:", 0) != 0) return {};
  return {e->spec.substr(4)};
}

// {root_pid}: the process through whose /proc/<pid>/root a probe reaches the target
// (ipc.unix-alias.proc-root, proc(5) "/proc/pid/root"): the harness's own for anything the host
// holds (its root is the host's: a path resolved below it leaves the sandbox's mount namespace),
// `self` for the workspace socket, the control, which the probe's own root must reach: a probe or
// a sandbox that cannot use /proc/*/root at all fails there too, so it never reads as a pass.
std::string root_pid(const Execution& ex) {
  const bool own = ex.target && ex.target->kind == TargetKind::kEndpoint &&
                   endpoint_reach(ex.target->value) == "workspace-socket";
  return own ? "self" : std::to_string(self_pid());
}

std::vector<std::string> probe_argv(const Execution& ex, const AttemptTree& tree, const AttemptIo& io,
                                    const RunContext& ctx) {
  if (is_fs_api(ex.attempt->klass)) return {kDriverFsProbe, io.target_spec};  // nothing runs: for the record
  auto vars = probe_placeholders(ex, tree, io);
  // The destination network = "proxy" admits, for attempts that name it beside their target
  // (proxy.host-header's decoy); "" when the run has none (those attempts skip on their target).
  const auto allowed = proxy_destination(ctx, "proxy-allowed");
  vars["{proxy_allowed}"] = allowed.empty() ? "" : allowed.front();
  // The endpoint's name in the run's zone (proxy-allowed: allowed.breakout.test; name_server.h).
  vars["{target_name}"] = ex.target && ex.target->kind == TargetKind::kEndpoint ? endpoint_host_name(ex.target->value) : "";
  std::vector<std::string> argv = {(ctx.probes_dir / ("breakout-probe-" + ex.attempt->probe)).string()};
  for (const auto& a : ex.attempt->args) argv.push_back(substitute_placeholders(a, vars));
  if (!io.witness.empty()) argv.insert(argv.end(), {"--witness", io.witness.string()});  // witness.h
  return argv;
}

// The attempt's per-exec caller variables ("NAME=value", placeholders expanded).
std::vector<std::pair<std::string, std::string>> attempt_env(const Execution& ex, const AttemptTree& tree,
                                                             const AttemptIo& io) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto vars = probe_placeholders(ex, tree, io);
  for (const auto& e : ex.attempt->env) {
    const auto eq = e.find('=');
    out.emplace_back(e.substr(0, eq), substitute_placeholders(e.substr(eq + 1), vars));
  }
  return out;
}

// The timeout the caller asks the spawner for; nullopt means none at all (the schema makes
// no-timeout's timeout_ms "none").
std::optional<std::chrono::milliseconds> requested_timeout(const Execution& ex) {
  return ex.attempt->timeout_override ? ex.attempt->timeout : ex.policy->timeout;
}

}  // namespace

std::map<std::string, std::string> probe_placeholders(const Execution& ex, const AttemptTree& tree,
                                                      const AttemptIo& io) {
  const auto& r = tree.roots();
  return {
      {"{target}", io.target_spec},   {"{nonce}", io.nonce},          {"{workspace}", r.workspace.string()},
      {"{home}", r.home.string()},    {"{sibling}", r.sibling.string()}, {"{tree}", r.tree.string()},
      {"{heartbeat}", io.heartbeat.string()}, {"{mark}", io.mark.string()}, {"{param}", ex.attempt->param},
      {"{tag}", io.nonce.substr(0, 8)}, {"{root_pid}", root_pid(ex)}};
}

// Real-host classes run only under `run --real-host`; anywhere else they are skipped, saying so.
// An attempt that names its destination (`uses = ["names"]`) needs the run's name server.
std::optional<Skip> scene_unavailable(const Execution& ex, const RunContext& ctx) {
  if (needs_real_host(ex.attempt->klass) && !ctx.real_home)
    return Skip{"needs `breakout run --real-host` (docs/real-host.md); the real HOME is never used otherwise"};
  if (ex.attempt->uses_names) {
    if (ctx.names == nullptr) return Skip{"names need the run's name server, and this run has none"};
    if (const auto& why = ctx.names->unavailable()) return Skip{"names need the run's name server: " + *why};
    if (ex.policy->network != NetworkMode::kProxy)
      return Skip{"the run's names resolve only for network = \"proxy\" spawns (host/name_server.h)"};
  }
  return std::nullopt;
}

Scene::Scene(const Execution& e, const RunContext& c, AttemptRecord& r)
    : ex(e),
      ctx(c),
      rec(r),
      nonce(random_hex(16)),
      real_canaries(real_home_canaries(e, c, nonce)),
      tree(c.work_root, e.index, nonce, real_home_of(e, c), c.tree_pool),
      box("a" + std::to_string(e.index) + "-" + nonce.substr(0, 8), nonce) {
  request.policy = ex.policy;
  request.roots = tree.roots();
  request.resolved = resolve(*ex.policy, tree.roots());  // once: every oracle reads this one
  request.caller_env = caller_env(ex, tree, nonce, &env_tokens);
  if (ex.policy->network == NetworkMode::kProxy) {
    request.proxy_allow = proxy_destination(ctx, "proxy-allowed");
    request.proxy_deny = proxy_destination(ctx, "proxy-denied");
    // With the run's zone, the names it admits and refuses too (host/name_server.h).
    if (ctx.names != nullptr && !ctx.names->unavailable()) {
      request.proxy_allow.insert(request.proxy_allow.end(), kAllowedNames.begin(), kAllowedNames.end());
      request.proxy_deny.insert(request.proxy_deny.end(), kDeniedNames.begin(), kDeniedNames.end());
    }
  }
}

std::optional<Skip> Scene::aim() {
  const std::string env_token = ex.target && ex.target->kind == TargetKind::kEnvVar ? env_tokens[ex.target->value] : "";
  return take(prepare_io(ex, tree, ctx, nonce, env_token), io);
}

void Scene::compose() {
  request.probe_argv = probe_argv(ex, tree, io, ctx);
  request.cwd = io.cwd.string();
  request.timeout = requested_timeout(ex);
  request.env_overrides = attempt_env(ex, tree, io);
  rec.probe_argv = request.probe_argv;
  if (!limits.timeout) limits.timeout = request.timeout ? *request.timeout : ctx.safety_cap;
  if (io.host_object) limits.controlling_tty = io.host_object->controlling_tty();  // tty-inject: the harness's pty
  // network = "proxy": the spawner (its proxy, and what it starts) resolves through the run's zone.
  if (ex.policy->network == NetworkMode::kProxy && ctx.names != nullptr) limits.bind_over = ctx.names->bind_over();
}

void Scene::snapshot_before() { before = take_snapshot(tree.roots().tree); }

}  // namespace breakout
