// Decoding live-fuzzer bytes into a case, and the attempt that runs it (live_case.h).
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
constexpr LiveOp kOps[] = {LiveOp::kProbeWrite, LiveOp::kProbeRead, LiveOp::kApiWrite, LiveOp::kApiRead};

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

}  // namespace

const char* to_string(LiveOp op) {
  switch (op) {
    case LiveOp::kProbeWrite: return "probe-write";
    case LiveOp::kProbeRead: return "probe-read";
    case LiveOp::kApiWrite: return "api-write";
    case LiveOp::kApiRead: return "api-read";
  }
  return "?";
}

const std::vector<std::vector<std::string>>& live_env_sets() {
  // Variables a careless caller sets per exec, aimed at the sibling (catalog §6): none of
  // them may widen what the sandbox lets a probe touch.
  static const std::vector<std::vector<std::string>> sets = {
      {}, {"HOME={sibling}"}, {"PWD={sibling}", "OLDPWD={sibling}"}, {"TMPDIR={sibling}"}};
  return sets;
}

const std::vector<std::string>& live_policies() {
  static const std::vector<std::string> names = {"workspace-write", "network-full"};
  return names;
}

LiveCase decode_live_case(const std::uint8_t* data, std::size_t size) {
  auto byte = [&](std::size_t i) -> std::size_t { return i < size ? data[i] : 0; };
  LiveCase c;
  c.policy = live_policies()[byte(0) % live_policies().size()];
  c.op = kOps[byte(1) % count(kOps)];
  const TargetPair& p = pair_of(c.op, byte(2));
  c.target = p.target;
  c.control = p.control;
  c.form = all_path_forms()[byte(3) % all_path_forms().size()];
  c.env = is_api(c.op) ? 0 : byte(4) % live_env_sets().size();  // the fs API runs no command
  return c;
}

std::vector<std::uint8_t> encode_live_case(const LiveCase& c) {
  std::vector<std::uint8_t> out(5, 0);
  for (std::size_t i = 0; i < live_policies().size(); ++i)
    if (live_policies()[i] == c.policy) out[0] = static_cast<std::uint8_t>(i);
  for (std::size_t i = 0; i < count(kOps); ++i)
    if (kOps[i] == c.op) out[1] = static_cast<std::uint8_t>(i);
  out[2] = static_cast<std::uint8_t>(index_of(c.op, c.target));
  for (std::size_t i = 0; i < all_path_forms().size(); ++i)
    if (all_path_forms()[i] == c.form) out[3] = static_cast<std::uint8_t>(i);
  out[4] = static_cast<std::uint8_t>(c.env);
  return out;
}

Attempt live_attempt(const LiveCase& c) {
  Attempt a;
  a.id = std::string("live.") + to_string(c.op) + "." + to_string(c.form);
  a.title = std::string("Live fuzz: ") + to_string(c.op) + " in path form " + to_string(c.form);
  a.description = describe_live_case(c);
  a.reference = "issue 4 (live escape fuzzing); catalog §1, §2, §6";
  a.platforms = {"linux"};
  a.param = c.form == PathForm::kAbsolute ? "" : to_string(c.form);
  a.env = live_env_sets()[c.env % live_env_sets().size()];
  const bool exists = pair_of(c.op, index_of(c.op, c.target)).exists;
  switch (c.op) {
    case LiveOp::kProbeWrite:
      a.klass = AttemptClass::kFsWrite;
      a.args = {"--op", exists ? "append" : "create", "--path", "{target}"};
      break;
    case LiveOp::kProbeRead:
      a.klass = AttemptClass::kFsRead;
      a.args = {"--path", "{target}", "--echo"};
      break;
    case LiveOp::kApiWrite: a.klass = AttemptClass::kFsApiWrite; break;
    case LiveOp::kApiRead: a.klass = AttemptClass::kFsApiRead; break;
  }
  a.probe = probe_for(a.klass);
  a.targets = {c.target};
  if (c.control != c.target) a.targets.push_back(c.control);
  a.source = "live fuzzer";
  return a;
}

std::string describe_live_case(const LiveCase& c) {
  std::string what;
  switch (c.op) {
    case LiveOp::kProbeWrite: what = "a probe inside the sandbox writes to"; break;
    case LiveOp::kProbeRead: what = "a probe inside the sandbox reads"; break;
    case LiveOp::kApiWrite: what = "the spawner's fs API (write_file) is asked to write to"; break;
    case LiveOp::kApiRead: what = "the spawner's fs API (read_file) is asked to read"; break;
  }
  std::string env = "no extra caller variables";
  if (!live_env_sets()[c.env].empty()) {
    env = "caller variables";
    for (const auto& e : live_env_sets()[c.env]) env += " " + e;
  }
  return "Under policy " + c.policy + ", " + what + " " + c.target.substr(3) + " spelled in path form " +
         to_string(c.form) + ", with " + env + "; control: the same on " + c.control.substr(3) + ".";
}

}  // namespace breakout
