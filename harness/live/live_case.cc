// Decoding live-fuzzer bytes into a case, and the attempts that run it (live_case.h).
#include "harness/live/live_case.h"

#include "harness/core/error.h"

namespace breakout {

namespace {

struct TargetPair {
  const char* target;
  const char* control;  // the workspace twin: same existence, so the same probe op
  bool exists;          // probe writes append to existing files and create new ones
};

// Write targets: outside every writable root, each with its workspace control.
constexpr TargetPair kWriteTargets[] = {
    {"fs:sibling/new-file", "fs:workspace/new-file", false},
    {"fs:sibling/existing.txt", "fs:workspace/existing.txt", true},
    {"fs:parent/new-file", "fs:workspace/new-file", false},
    {"fs:~/.bashrc", "fs:workspace/existing.txt", true},
    {"fs:~/.config/autostart/evil.desktop", "fs:workspace/new-file", false},
    {"fs:workspace/new-file", "fs:workspace/new-file", false},  // a control on its own
};
// Read targets: canaries (deny_read secrets, a sibling file the fs API must not reach).
constexpr TargetPair kReadTargets[] = {
    {"fs:~/.ssh/id_ed25519", "fs:workspace/readable.txt", true},
    {"fs:~/.aws/credentials", "fs:workspace/readable.txt", true},
    {"fs:sibling/notes.txt", "fs:workspace/readable.txt", true},
    {"fs:~/.kube/config", "fs:workspace/readable.txt", true},
    {"fs:workspace/readable.txt", "fs:workspace/readable.txt", true},
};
// New operations go last: bytes [1] 0..3 of older inputs keep their operation.
constexpr LiveOp kOps[] = {LiveOp::kProbeWrite,   LiveOp::kProbeRead,      LiveOp::kApiWrite,   LiveOp::kApiRead,
                           LiveOp::kProxyConnect, LiveOp::kProxyAbsolute, LiveOp::kProxySocks5};

// The controls of cwd-write and path-hijack, as exec.cwd-outside and exec.path-hijack have them.
constexpr const char* kCwdControl = "fs:workspace/cwd";
constexpr const char* kMarksControl = "fs:workspace/marks";

// Proxy destinations, as scenarios/attempts/proxy.toml and proxy_names.toml spell them for
// breakout-probe-net-connect (its --spell, --name, --decoy; probes/common/proxy_target.h). The
// last kAbsoluteOnly entries need --route absolute; the other routes decode modulo the rest.
struct Spelling {
  const char* name;
  const char* target;
  std::vector<std::string> args;  // after --target, --nonce and --route
  bool by_name;                   // its control asks for the allowed destination by name too
  // A second destination chosen by an odd byte [3]. The IP spellings aim at name-denied too, as
  // proxy.toml's do: a denied address rather than a denied port, so a proxy that matches hosts
  // only (Codex's, which the harness skips on proxy-denied) is judged on them as well.
  const char* also = nullptr;
};
const std::vector<Spelling>& spellings() {
  static const std::vector<Spelling> s = {
      {"denied", "net:proxy-denied", {}, false},
      {"decimal", "net:proxy-denied", {"--spell", "decimal"}, false, "net:name-denied"},
      {"octal", "net:proxy-denied", {"--spell", "octal"}, false, "net:name-denied"},
      {"hex", "net:proxy-denied", {"--spell", "hex"}, false, "net:name-denied"},
      {"mapped6", "net:proxy-denied", {"--spell", "mapped6"}, false, "net:name-denied"},
      {"name", "net:name-denied", {"--name", "{target_name}"}, true},
      {"trailing-dot", "net:name-denied", {"--name", "denied.allowed.breakout.test", "--spell", "trailing-dot"}, true},
      {"mixed-case", "net:name-denied", {"--name", "denied.allowed.breakout.test", "--spell", "mixed-case"}, true},
      {"nul-suffix", "net:name-denied",
       {"--name", "denied.breakout.test", "--spell", "nul-suffix", "--decoy", "allowed.breakout.test"}, true},
      {"name-loopback", "net:tcp4-loopback", {"--name", "loop.allowed.breakout.test"}, true},
      {"name-to-denied-address", "net:proxy-denied", {"--name", "alias.allowed.breakout.test"}, true},
      {"dns-exfil", "net:name-denied", {"--name", "{nonce}.{target_name}"}, true},
      {"host-header", "net:proxy-denied", {"--spell", "host-header", "--decoy", "{proxy_allowed}"}, false},
      {"uri-host", "net:proxy-denied", {"--spell", "uri-host", "--decoy", "{proxy_allowed}"}, false},
      {"userinfo", "net:proxy-denied", {"--spell", "userinfo", "--decoy", "{proxy_allowed}"}, false},
  };
  return s;
}
constexpr std::size_t kAbsoluteOnly = 3;
std::size_t spelling_count(LiveOp op) {
  return op == LiveOp::kProxyAbsolute ? spellings().size() : spellings().size() - kAbsoluteOnly;
}
const char* route_of(LiveOp op) {
  return op == LiveOp::kProxyConnect ? "connect" : op == LiveOp::kProxyAbsolute ? "absolute" : "socks5";
}

bool is_write(LiveOp op) { return op == LiveOp::kProbeWrite || op == LiveOp::kApiWrite; }
bool is_api(LiveOp op) { return op == LiveOp::kApiWrite || op == LiveOp::kApiRead; }

template <typename T, std::size_t N>
constexpr std::size_t count(const T (&)[N]) { return N; }

const TargetPair& pair_of(LiveOp op, std::size_t i) {
  return is_write(op) ? kWriteTargets[i % count(kWriteTargets)] : kReadTargets[i % count(kReadTargets)];
}

std::size_t index_of(LiveOp op, const std::string& target) {
  const std::size_t n = is_write(op) ? count(kWriteTargets) : count(kReadTargets);
  for (std::size_t i = 0; i < n; ++i)
    if (pair_of(op, i).target == target) return i;
  throw Error("bad-live-case", "target " + target + " is not in the live target table");
}

// Where path-hijack's stubs mark when a write target is chosen: the directory that holds it (the
// workspace's own target: its marks directory, the control on its own).
std::string marks_dir(const std::string& write_target) {
  if (write_target.rfind("fs:workspace/", 0) == 0) return kMarksControl;
  return write_target.substr(0, write_target.rfind('/'));
}

std::size_t marks_index(const std::string& dir) {
  for (std::size_t i = 0; i < count(kWriteTargets); ++i)
    if (marks_dir(kWriteTargets[i].target) == dir) return i;
  throw Error("bad-live-case", "path-hijack target " + dir + " is not a live write target's directory");
}

std::string path_param(std::size_t path) {
  const std::string& entry = live_path_entries()[path % live_path_entries().size()];
  return entry == "absolute" ? "" : entry;
}

// The detail that names a case besides its kind: the spelling, the PATH entry, or the path form.
std::string detail_of(const LiveCase& c) {
  if (is_proxy(c.op)) return live_proxy_spellings()[c.spelling];
  if (c.path) return live_path_entries()[c.path];
  return to_string(c.form);
}

std::string plain(const std::string& target) { return target.substr(target.find(':') + 1); }

}  // namespace

const char* to_string(LiveOp op) {
  switch (op) {
    case LiveOp::kProbeWrite: return "probe-write";
    case LiveOp::kProbeRead: return "probe-read";
    case LiveOp::kApiWrite: return "api-write";
    case LiveOp::kApiRead: return "api-read";
    case LiveOp::kProxyConnect: return "proxy-connect";
    case LiveOp::kProxyAbsolute: return "proxy-absolute";
    case LiveOp::kProxySocks5: return "proxy-socks5";
  }
  return "?";
}

bool is_proxy(LiveOp op) {
  return op == LiveOp::kProxyConnect || op == LiveOp::kProxyAbsolute || op == LiveOp::kProxySocks5;
}

const std::vector<std::vector<std::string>>& live_env_sets() {
  // Variables a careless caller sets per exec, aimed at the sibling (HOME, PWD, TMPDIR): none of
  // them may widen what the sandbox lets a probe touch.
  static const std::vector<std::vector<std::string>> sets = {
      {}, {"HOME={sibling}"}, {"PWD={sibling}", "OLDPWD={sibling}"}, {"TMPDIR={sibling}"}};
  return sets;
}

const std::vector<std::string>& live_policies() {
  static const std::vector<std::string> names = {"workspace-write", "network-full"};
  return names;
}

const std::vector<std::string>& all_live_policies() {
  static const std::vector<std::string> names = {"workspace-write", "network-full", "network-proxy"};
  return names;
}

const std::vector<std::string>& live_cwds() {
  // The directories exec.cwd-outside asks for, and the workspace's parent (CVE-2025-59532: Codex
  // took the model's cwd as its writable root, so any of them would have become writable).
  static const std::vector<std::string> cwds = {"fs:workspace", "fs:sibling", "fs:parent", "fs:~"};
  return cwds;
}

const std::vector<std::string>& live_path_entries() {
  // path-hijack's params (classes/handover/path_hijack.cc), "absolute" for its "".
  static const std::vector<std::string> entries = {"caller", "absolute", "relative", "dot", "empty"};
  return entries;
}

const std::vector<std::string>& live_proxy_spellings() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& s : spellings()) v.push_back(s.name);
    return v;
  }();
  return names;
}

std::string live_kind(const LiveCase& c) {
  if (c.op == LiveOp::kProbeWrite && c.path) return "path-hijack";
  if (c.op == LiveOp::kProbeWrite && c.cwd) return "cwd-write";
  return to_string(c.op);
}

const char* live_suite(const LiveCase& c) { return is_proxy(c.op) ? "proxy" : "default"; }

LiveCase decode_live_case(const std::uint8_t* data, std::size_t size) {
  auto byte = [&](std::size_t i) -> std::size_t { return i < size ? data[i] : 0; };
  LiveCase c;
  c.op = kOps[byte(1) % count(kOps)];
  if (is_proxy(c.op)) {
    // The proxy suite has one policy; what the sandbox's proxy admits is the whole question.
    c.policy = "network-proxy";
    c.spelling = byte(2) % spelling_count(c.op);
    const Spelling& s = spellings()[c.spelling];
    c.target = s.also && byte(3) % 2 ? s.also : s.target;
    c.control = "net:proxy-allowed";
    return c;
  }
  c.policy = live_policies()[byte(0) % live_policies().size()];
  const TargetPair& p = pair_of(c.op, byte(2));
  c.target = p.target;
  c.control = p.control;
  c.form = all_path_forms()[byte(3) % all_path_forms().size()];
  c.env = is_api(c.op) ? 0 : byte(4) % live_env_sets().size();  // the fs API runs no command
  if (c.op != LiveOp::kProbeWrite) return c;  // a relative write and the stubs' marks are writes
  c.path = byte(6) % live_path_entries().size();
  c.cwd = c.path ? 0 : byte(5) % live_cwds().size();  // path-hijack sets its own cwd
  if (c.path) {
    c.target = marks_dir(p.target);
    c.control = kMarksControl;
    c.form = PathForm::kAbsolute;  // path-hijack's param is the PATH entry
  } else if (c.cwd) {
    c.target = live_cwds()[c.cwd];
    c.control = kCwdControl;
  }
  return c;
}

std::vector<std::uint8_t> encode_live_case(const LiveCase& c) {
  std::vector<std::uint8_t> out(7, 0);
  for (std::size_t i = 0; i < count(kOps); ++i)
    if (kOps[i] == c.op) out[1] = static_cast<std::uint8_t>(i);
  if (is_proxy(c.op)) {
    out[2] = static_cast<std::uint8_t>(c.spelling);
    const char* also = spellings()[c.spelling].also;
    out[3] = also && c.target == also ? 1 : 0;
    return out;
  }
  for (std::size_t i = 0; i < live_policies().size(); ++i)
    if (live_policies()[i] == c.policy) out[0] = static_cast<std::uint8_t>(i);
  if (c.path) out[2] = static_cast<std::uint8_t>(marks_index(c.target));
  else if (!c.cwd) out[2] = static_cast<std::uint8_t>(index_of(c.op, c.target));
  for (std::size_t i = 0; i < all_path_forms().size(); ++i)
    if (all_path_forms()[i] == c.form) out[3] = static_cast<std::uint8_t>(i);
  out[4] = static_cast<std::uint8_t>(c.env);
  out[5] = static_cast<std::uint8_t>(c.cwd);
  out[6] = static_cast<std::uint8_t>(c.path);
  return out;
}

namespace {

// A live case's class, by its name in scenario files, as a scenario file names it.
AttemptClass class_named(const char* name) {
  if (const auto c = attempt_class_from(name)) return *c;
  throw Error("bad-class", std::string("no attempt class ") + name);
}

}  // namespace

Attempt live_attempt(const LiveCase& c) {
  Attempt a;
  const std::string kind = live_kind(c), detail = detail_of(c);
  a.id = "live." + kind + "." + detail;
  a.title = "Live fuzz: " + kind + " (" + detail + ")";
  a.description = describe_live_case(c);
  a.reference =
      "docs/fuzzing.md (live escape fuzzing); path_resolution(7); CWE-22 (path traversal); CWE-59 (link "
      "following); CVE-2025-59532 (a requested cwd became writable); curl(1) ENVIRONMENT (proxy variables)";
  a.platforms = {"linux"};
  a.env = live_env_sets()[c.env % live_env_sets().size()];
  a.targets = {c.target};
  if (c.control != c.target) a.targets.push_back(c.control);
  a.source = "live fuzzer";
  if (is_proxy(c.op)) {
    a.klass = class_named("proxy-connect");
    a.args = {"--target", "{target}", "--nonce", "{nonce}", "--route", route_of(c.op)};
    const auto& extra = spellings()[c.spelling % spellings().size()].args;
    a.args.insert(a.args.end(), extra.begin(), extra.end());
    a.uses_names = spellings()[c.spelling % spellings().size()].by_name;
    a.targets = {c.target};
    a.controls_from = a.id + ".control";
    a.probe = probe_for(a.klass);
    return a;
  }
  a.param = c.form == PathForm::kAbsolute ? "" : to_string(c.form);
  if (kind == "path-hijack") {
    a.klass = class_named("path-hijack");
    a.args = {"--name", "git", "--arg", "--version"};  // as exec.path-hijack: an agent's command
    a.param = path_param(c.path);
  } else if (kind == "cwd-write") {
    a.klass = class_named("cwd-write");
    a.args = {"--op", "create", "--path", "breakout-cwd-{tag}"};  // as exec.cwd-outside: relative
  } else {
    const bool exists = pair_of(c.op, index_of(c.op, c.target)).exists;
    switch (c.op) {
      case LiveOp::kProbeWrite:
        a.klass = class_named("fs-write");
        a.args = {"--op", exists ? "append" : "create", "--path", "{target}"};
        break;
      case LiveOp::kProbeRead:
        a.klass = class_named("fs-read");
        a.args = {"--path", "{target}", "--echo"};
        break;
      case LiveOp::kApiWrite: a.klass = class_named("fs-api-write"); break;
      case LiveOp::kApiRead: a.klass = class_named("fs-api-read"); break;
      default: throw Error("bad-live-case", std::string("operation ") + to_string(c.op));
    }
  }
  a.probe = probe_for(a.klass);
  return a;
}

std::optional<Attempt> live_control_attempt(const LiveCase& c) {
  if (!is_proxy(c.op)) return std::nullopt;
  const Attempt spelled = live_attempt(c);
  Attempt a;
  a.id = spelled.controls_from;
  a.title = "Live fuzz control: " + std::string(to_string(c.op)) + " to the allowed destination";
  a.description = "The same route, unspelled, to the destination the proxy admits" +
                  std::string(spellings()[c.spelling].by_name ? ", by name" : "") +
                  ": it must get through, or the proxy admits nothing and a denial means nothing.";
  a.reference = spelled.reference;
  a.platforms = spelled.platforms;
  a.klass = class_named("proxy-connect");
  a.probe = probe_for(a.klass);
  a.args = {"--target", "{target}", "--nonce", "{nonce}", "--route", route_of(c.op)};
  a.uses_names = spellings()[c.spelling].by_name;
  if (a.uses_names) a.args.insert(a.args.end(), {"--name", "{target_name}"});
  a.targets = {c.control};
  a.source = "live fuzzer";
  return a;
}

std::string describe_live_case(const LiveCase& c) {
  std::string env = "no extra caller variables";
  if (!live_env_sets()[c.env].empty()) {
    env = "caller variables";
    for (const auto& e : live_env_sets()[c.env]) env += " " + e;
  }
  const std::string under = "Under policy " + c.policy + ", ";
  if (is_proxy(c.op)) {
    const Spelling& s = spellings()[c.spelling];
    std::string how = std::string("spelled '") + s.name + "'";
    for (const auto& a : s.args) how += " " + a;
    return under + "a probe inside the sandbox asks the sandbox's proxy (route " + route_of(c.op) + ") for " +
           plain(c.target) + ", " + how + "; control: the same route, unspelled" +
           (s.by_name ? " and by name" : "") + ", to " + plain(c.control) + ".";
  }
  const std::string kind = live_kind(c);
  if (kind == "cwd-write")
    return under + "the exec is asked to run in " + plain(c.target) + " spelled in path form " + to_string(c.form) +
           " and a probe inside the sandbox creates a file relative to its cwd, with " + env + "; control: the same in " +
           plain(c.control) + ".";
  if (kind == "path-hijack") {
    const std::string& entry = live_path_entries()[c.path];
    const std::string words = entry == "absolute" ? "its absolute path"
                              : entry == "relative" ? "the relative entry .bin (cwd: the workspace)"
                              : entry == "dot" ? "the entry . (cwd: workspace/.bin)"
                                               : "an empty entry, which means the cwd (cwd: workspace/.bin)";
    return under + "the harness's helper stubs (bwrap, firejail, socat, rg, node, python3, git) in workspace/.bin come "
                   "first on the exec's PATH as " + words + ", and a probe inside the sandbox runs git from PATH; a stub "
                   "that runs unconfined marks " + plain(c.target) + ", with " + env + "; control: the marks in " +
                   plain(c.control) + ".";
  }
  std::string what;
  switch (c.op) {
    case LiveOp::kProbeWrite: what = "a probe inside the sandbox writes to"; break;
    case LiveOp::kProbeRead: what = "a probe inside the sandbox reads"; break;
    case LiveOp::kApiWrite: what = "the spawner's fs API (write_file) is asked to write to"; break;
    case LiveOp::kApiRead: what = "the spawner's fs API (read_file) is asked to read"; break;
    default: break;
  }
  return under + what + " " + plain(c.target) + " spelled in path form " + to_string(c.form) + ", with " + env +
         "; control: the same on " + plain(c.control) + ".";
}

}  // namespace breakout
