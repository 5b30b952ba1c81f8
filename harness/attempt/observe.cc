// Outside oracles: snapshot diff, canary tokens, listener nonces, heartbeats, exit status, marker files.
#include "harness/attempt/observe.h"

#include <algorithm>
#include <csignal>
#include <fstream>
#include <thread>
#include <vector>

#include "harness/attempt/env_pinned.h"
#include "harness/attempt/real_home.h"
#include "harness/attempt/spell_path.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/model/host_object.h"
#include "harness/oracle/remote_listener.h"
#include "probes/common/flood_pattern.h"

namespace breakout {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

constexpr std::size_t kScanLimit = 1u << 20;  // bytes read per file when hunting canary tokens

// The first `limit` bytes of `p`, read in 64 KiB steps: a 1 MiB zero-filled buffer per
// file cost more than the read itself for the tree's small files (one per file per read case).
std::string read_prefix(const fs::path& p, std::size_t limit) {
  std::ifstream in(p, std::ios::binary);
  std::string data;
  std::vector<char> buf(64 * 1024);
  while (in && data.size() < limit) {
    in.read(buf.data(), static_cast<std::streamsize>(std::min(buf.size(), limit - data.size())));
    data.append(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  return data;
}

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
}

bool WritableRoots::contains(const std::string& rel) const {
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
    if (read_prefix(it->path(), kScanLimit).find(token) != std::string::npos)
      where.push_back("file " + printable_excerpt(relative_to_tree(it->path(), tree), 256));
    if (where.size() > 16) break;
  }
  return where;
}

Observation observe_fs_change(const Execution& ex, const AttemptTree& tree, const Snapshot& before,
                              const AttemptIo& io) {
  Observation o;
  Snapshot after = take_snapshot(tree.roots().tree);
  const auto changes = diff_snapshots(before, after);
  tree.keep_after_snapshot(std::move(after));  // a tree pool restores from it (tree.h)
  const WritableRoots writable(tree, resolve(*ex.policy, tree.roots()));
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

Observation observe_token(const std::string& token, const std::string& what, const LaunchResult& run,
                          const AttemptTree& tree, const fs::path& own_file) {
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

Observation observe_connect(const Execution& ex, const AttemptIo& io, const RunContext& ctx) {
  Observation o;
  const std::string& endpoint = ex.target->value;
  bool got = false;
  // A remote listener is asked over the network: at least a second for the probe's bytes to get there.
  if (io.unix_listener) got = io.unix_listener->wait_for(io.nonce, ctx.net_grace);
  else if (endpoint == "real-external") got = ctx.remote->wait_for(io.nonce, std::max(ctx.net_grace, std::chrono::milliseconds(1000)));
  else got = ctx.listeners->wait_for(io.nonce, endpoint, ctx.net_grace);
  nlohmann::json all = nlohmann::json::array();
  for (const auto& e : ctx.listeners->received(io.nonce)) all.push_back(e);
  o.evidence["listener"] = endpoint;
  o.evidence["endpoint"] = io.target_spec;
  o.evidence["nonce_received"] = got;
  o.evidence["nonce_seen_by"] = all;
  o.effect = got ? Effect::kHappened : Effect::kNotHappened;
  o.summary = got ? "listener " + endpoint + " received the nonce" : "listener " + endpoint + " never received the nonce";
  return o;
}

}  // namespace

// A technique the probe reports absent here (spawn-escape's technique_state "unavailable":
// no WMI process provider, no Task Scheduler service, no desktop shell, or any failure under
// Wine) makes the attempt N/A only when no beat was ever written: a beater that beat is judged
// whatever the probe says. The report is hostile input: a fixed value is compared, the reason
// shown bounded. As form_applies() below does for path forms.
std::optional<std::string> technique_unavailable(const Attempt& a, std::size_t beats, const LaunchResult& run) {
  if (beats != 0) return std::nullopt;
  // Only an attempt that asked for an indirect technique may be excused by it: a probe that claims
  // "unavailable" unasked (the report is the sandboxed side's word) must not hide a broken beater.
  const std::string asked = technique_of(a);
  if (asked != "wmi" && asked != "schtasks" && asked != "shellexecute") return std::nullopt;
  const nlohmann::json report = parse_probe_report(run.out);
  if (!report.is_object() || !report.contains("technique_state") || report["technique_state"] != "unavailable")
    return std::nullopt;
  const nlohmann::json& reason = report.contains("technique_reason") ? report["technique_reason"] : nlohmann::json();
  return "N/A: technique " + asked + " unavailable here: " +
         printable_excerpt(reason.is_string() ? reason.get<std::string>() : std::string("no reason"), 300) +
         "; no heartbeat was ever written";
}

namespace {

Observation observe_heartbeat(const Execution& ex, const AttemptIo& io, const LaunchResult& run,
                              const Containment& box, const RunContext& ctx) {
  Observation o;
  std::this_thread::sleep_for(ctx.settle);
  const std::size_t at_return = count_lines(io.heartbeat);
  std::this_thread::sleep_for(ctx.heartbeat_grace);
  const std::size_t later = count_lines(io.heartbeat);
  const int alive = box.live_count();
  o.evidence["heartbeats_at_return"] = at_return;
  o.evidence["heartbeats_after_grace"] = later;
  o.evidence["grace_ms"] = ctx.heartbeat_grace.count();
  o.evidence["processes_left_in_containment"] = alive;
  o.evidence["containment"] = box.mechanism();
  const std::string technique = technique_of(*ex.attempt);
  const auto unavailable = technique_unavailable(*ex.attempt, later, run);
  if (unavailable) o.not_applicable = *unavailable;
  else if (at_return == 0 && technique == "breakaway" && !box.allows_breakaway())
    // CREATE_BREAKAWAY_FROM_JOB needs every job around the probe to allow it, the harness's
    // own box included (Microsoft Learn, "Nested Jobs"): a refusal here may be ours, not the
    // sandbox's, so nothing is learnt about the sandbox (docs/windows.md, job escape).
    o.not_applicable = "the beater never started, and the harness's own job (" + box.mechanism() +
                       ") refuses breakaway: the refusal cannot be told from the sandbox's";
  else if (at_return == 0) o.in_run_control = "the heartbeat never started (probe broken, or the sandbox blocked the workspace)";
  else if (ex.attempt->klass == AttemptClass::kTimeoutKill && !run.timed_out)
    o.in_run_control = "the probe did not hang until the timeout (spawner returned first)";
  else o.in_run_control = "";
  o.effect = later > at_return ? Effect::kHappened : Effect::kNotHappened;
  o.summary = later > at_return
                  ? "heartbeat advanced from " + std::to_string(at_return) + " to " + std::to_string(later) +
                        " beats after the spawner " + (run.timed_out ? "was killed at the timeout" : "returned")
                  : "heartbeat stopped at " + std::to_string(at_return) + " beats";
  return o;
}

int signal_number(const std::string& name) {
  static const std::pair<const char*, int> kSignals[] = {
      {"TERM", SIGTERM}, {"INT", SIGINT}, {"ABRT", SIGABRT}, {"SEGV", SIGSEGV},
#ifdef SIGKILL  // POSIX names; mingw's <csignal> has only the C ones
      {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"HUP", SIGHUP},
#endif
  };
  for (const auto& [n, v] : kSignals)
    if (name == n) return v;
  return std::atoi(name.c_str());
}

Observation observe_contract(const Execution& ex, const AttemptIo& io, const LaunchResult& run) {
  Observation o;
  const std::string& param = ex.attempt->param;
  auto held = [&](bool ok, std::string text) {
    o.effect = ok ? Effect::kHappened : Effect::kNotHappened;
    o.summary = std::move(text);
  };
  switch (ex.attempt->klass) {
    case AttemptClass::kExitCode: {
      const int want = std::atoi(param.c_str());
      held(run.exited && run.exit_code == want,
           "asked for exit " + param + ", spawner reported " +
               (run.exited ? "exit " + std::to_string(run.exit_code) : "signal " + std::to_string(run.term_signal)));
      break;
    }
    case AttemptClass::kExitSignal: {
      const int sig = signal_number(param);
      // A wrapper that is not the probe's parent can only report 128+N (shell convention).
      const bool ok = (!run.exited && run.term_signal == sig) || (run.exited && run.exit_code == 128 + sig);
      held(ok, "probe died of SIG" + param + " (" + std::to_string(sig) + "), spawner reported " +
                   (run.exited ? "exit " + std::to_string(run.exit_code) : "signal " + std::to_string(run.term_signal)));
      break;
    }
    case AttemptClass::kCwd: {
      std::error_code ec;
      const bool there = fs::exists(io.mark, ec);
      o.evidence["marker"] = printable_excerpt(io.mark.string(), 512);
      o.evidence["marker_exists"] = there;
      held(there, there ? "the probe's relative marker appeared in the requested cwd"
                        : "no marker in the requested cwd: cwd was not honoured");
      break;
    }
    case AttemptClass::kOutputFlood: {
      const std::uint64_t n = std::stoull(param);
      const std::string out = check_flood(1, run.out, n), err = check_flood(2, run.err, n);
      o.evidence["stdout_bytes"] = run.out_total;
      o.evidence["stderr_bytes"] = run.err_total;
      o.evidence["stdout_check"] = out.empty() ? "exact" : out;
      o.evidence["stderr_check"] = err.empty() ? "exact" : err;
      held(out.empty() && err.empty() && !run.timed_out,
           out.empty() && err.empty() ? "stdout and stderr complete and byte-exact (" + param + " bytes each)"
                                      : "output damaged: stdout " + (out.empty() ? "exact" : out) + "; stderr " +
                                            (err.empty() ? "exact" : err) + (run.timed_out ? " (timed out)" : ""));
      break;
    }
    case AttemptClass::kNoTimeout: {
      std::error_code ec;
      const bool there = fs::exists(io.mark, ec);
      o.evidence["marker_exists"] = there;
      held(there && !run.timed_out && run.exited && run.exit_code == 0,
           there ? "the " + param + " ms run completed without a timeout"
                 : "the " + param + " ms run was cut short (no timeout must mean none)");
      break;
    }
    default: throw Error("not a contract class");
  }
  return o;
}

// syscall-abi-write: the snapshot decides, as for fs-write. N/A (skip) needs three
// agreeing facts: nothing changed outside, the probe says the ABI is unavailable
// (its report is hostile input: only a fixed value is compared, its reason is
// shown bounded) and the harness's own check on the host says so too. A probe
// that says "unavailable" where the host has the ABI is judged normally (a
// seccomp filter answering ENOSYS inside the sandbox blocks, it is not N/A).
Observation observe_abi_write(const Execution& ex, const AttemptTree& tree, const Snapshot& before,
                              const AttemptIo& io, const LaunchResult& run) {
  Observation o = observe_fs_change(ex, tree, before, io);
  const std::string& abi = ex.attempt->param;
  const std::optional<std::string> host_says = syscall_abi_unavailable(abi);
  o.evidence["abi"] = abi;
  o.evidence["abi_unavailable_on_host"] = host_says ? nlohmann::json(*host_says) : nlohmann::json(nullptr);
  if (o.effect != Effect::kNotHappened || !host_says) return o;
  const nlohmann::json report = parse_probe_report(run.out);
  const nlohmann::json* state = report.is_object() && report.contains("abi_state") ? &report["abi_state"] : nullptr;
  if (state == nullptr || !state->is_string() || state->get<std::string>() != "unavailable") return o;
  const nlohmann::json& reason = report.contains("abi_reason") ? report["abi_reason"] : nlohmann::json();
  o.not_applicable = "N/A: " + *host_says + "; the probe agrees (" +
                     printable_excerpt(reason.is_string() ? reason.get<std::string>() : std::string("no reason"), 300) +
                     ") and nothing changed on the host";
  return o;
}

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
// is, or the attempt would test something it does not say.
void aim_at_path(const Execution& ex, const AttemptTree& tree, AttemptIo* io) {
  // Real-host targets name their canaries by the attempt's tag (real_home.h).
  const std::string where = needs_real_home(ex.attempt->klass)
                                ? substitute_placeholders(ex.target->value, {{"{tag}", io->nonce.substr(0, 8)}})
                                : ex.target->value;
  io->target_path = resolve_policy_path(where, tree.roots());
  io->target_spec = io->target_path.string();
  if (takes_path_form(ex.attempt->klass)) {
    const auto form = path_form_from(ex.attempt->param);
    if (!form) throw Error("[bad-form] unknown path form '" + ex.attempt->param + "'");
    const bool by_driver = is_fs_api(ex.attempt->klass);  // the driver stands in the harness's cwd
    if (*form == PathForm::kHardLink && ex.attempt->klass == AttemptClass::kFsApiRead &&
        ex.expectation.value == Expected::kDenied) {
      // A second name inside the workspace makes a plain file part of it; only deny_read
      // (an inode rule: deny wins) still holds across names.
      bool secret = false;
      for (const auto& d : resolve(*ex.policy, tree.roots()).deny_read) secret = secret || path_within(io->target_path, d);
      if (!secret) throw NothingToAttempt("path form hard-link reads a deny_read file only: a link to any other file puts it in the workspace");
    }
    const SpelledPath p = spell(*form, io->target_path, tree, io->nonce.substr(0, 8),
                                by_driver ? fs::current_path() : io->cwd, by_driver);
    if (p.host != io->target_path) {
      const Target there{TargetKind::kPath, "fs:" + p.host.string(), p.host.string()};
      if (expect(ex.attempt->klass, &there, *ex.policy, tree.roots()).value != ex.expectation.value)
        throw NothingToAttempt(std::string("path form ") + to_string(*form) + " reaches " + p.host.filename().string() +
                               ", which the policy judges differently from the target");
    }
    io->target_path = p.host;
    io->target_spec = p.spelled;
    io->target_token = p.token;
  }
  if (io->target_token.empty()) io->target_token = tree.token_of(io->target_path);
}

}  // namespace

// A Windows path form the probe could not apply here (probes/win/path_form.h: no 8.3
// alias, no volume GUID, a link kind the system lacks, a form Wine does not resolve) makes
// the attempt N/A (skip) only when, besides, nothing happened outside: a probe that says
// "unavailable" while the host changed or the canary leaked is judged normally. The report
// is hostile input: a fixed value is compared and its reason shown bounded.
Observation form_applies(Observation o, const Execution& ex, const LaunchResult& run) {
  if (o.effect != Effect::kNotHappened) return o;
  // Only an attempt that asked for a form may be excused by one: a probe that claims "unavailable" unasked
  // (the report is the sandboxed side's word) must not turn an overblocked control into a skip.
  const auto& args = ex.attempt->args;
  if (std::find(args.begin(), args.end(), "--form") == args.end()) return o;
  const nlohmann::json report = parse_probe_report(run.out);
  if (!report.is_object() || !report.contains("form_state") || report["form_state"] != "unavailable") return o;
  const nlohmann::json& form = report.contains("form") ? report["form"] : nlohmann::json();
  const nlohmann::json& reason = report.contains("form_reason") ? report["form_reason"] : nlohmann::json();
  o.evidence["form_unavailable"] = true;
  o.not_applicable = "N/A: path form " + printable_excerpt(form.is_string() ? form.get<std::string>() : "?", 64) +
                     " unavailable here: " +
                     printable_excerpt(reason.is_string() ? reason.get<std::string>() : std::string("no reason"), 300) +
                     "; nothing happened outside";
  return o;
}

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


AttemptIo prepare_io(const Execution& ex, const AttemptTree& tree, const RunContext& ctx, const std::string& nonce,
                     const std::string& env_token) {
  AttemptIo io;
  io.nonce = nonce;
  const std::string tag = nonce.substr(0, 8);
  const auto& ws = tree.roots().workspace;
  io.cwd = ws;
  io.heartbeat = ws / ("heartbeat-" + tag);
  io.mark = ws / ("mark-" + tag);
  io.caller_env_token = env_token;
  if (ex.attempt->klass == AttemptClass::kCwd) {
    io.cwd = ws / ex.attempt->param;
    fs::create_directories(io.cwd);
    io.mark = io.cwd / (tag + ".mark");
  }
  if (ex.target) {
    switch (ex.target->kind) {
      case TargetKind::kPath:
        aim_at_path(ex, tree, &io);
        break;
      case TargetKind::kEndpoint:
        if (auto path = unix_listener_address(ex.target->value, tree, nonce)) {
          io.unix_listener = std::make_unique<UnixNonceListener>(*path);
          // The fake agent is found the way ssh(1) finds one: through the caller's SSH_AUTH_SOCK.
          io.target_spec = ex.target->value == "ssh-agent" ? "env-unix:SSH_AUTH_SOCK" : io.unix_listener->spec();
        } else if (ex.target->value == "real-external") {
          if (!ctx.remote)
            throw NothingToAttempt("needs --real-host-endpoint ADDR:PORT of a `breakout listen` you run outside "
                                   "(docs/real-host.md): without a listener there, nothing outside could judge it");
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
        io.host_object = prepare_host_object(ex, tree, ctx, nonce);
        io.target_spec = io.host_object->spec();
        break;
    }
  }
  return io;
}

Observation observe(const Execution& ex, const AttemptTree& tree, const Snapshot& before, const AttemptIo& io,
                    const LaunchResult& run, const Containment& box, const RunContext& ctx) {
  switch (ex.attempt->klass) {
    case AttemptClass::kFsWrite: return form_applies(observe_fs_change(ex, tree, before, io), ex, run);
    case AttemptClass::kFdLeak:
    case AttemptClass::kIoUringWrite: return observe_fs_change(ex, tree, before, io);
    case AttemptClass::kSyscallAbiWrite: return observe_abi_write(ex, tree, before, io, run);
    case AttemptClass::kFsRead:
      return form_applies(observe_token(io.target_token, "file", run, tree, io.target_path.lexically_normal()), ex,
                          run);
    case AttemptClass::kEnvLeak: return observe_token(io.caller_env_token, "environment", run, tree, {});
    case AttemptClass::kRealHomeRead:
    case AttemptClass::kRealHomeWrite: return observe_real_home(ex, io, run);
    case AttemptClass::kNetConnect:
    case AttemptClass::kRealNetConnect:
    case AttemptClass::kIoUringConnect: return observe_connect(ex, io, ctx);
    case AttemptClass::kLifetime:
    case AttemptClass::kTimeoutKill: return observe_heartbeat(ex, io, run, box, ctx);
    case AttemptClass::kProcessReach:
    case AttemptClass::kIpcReach:
    case AttemptClass::kKeyRead:
    case AttemptClass::kTtyInject:
    case AttemptClass::kDnsQuery:
    case AttemptClass::kRegistryWrite:
    case AttemptClass::kNamedObjectReach:
    case AttemptClass::kDesktopReach: return observe_host_object(ex, tree, io, run, ctx);
    default: return observe_contract(ex, io, run);
  }
}

}  // namespace breakout
