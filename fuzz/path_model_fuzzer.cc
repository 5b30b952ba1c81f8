// Differential fuzzing of the Linux path model: every generated form resolved by the model and by the kernel must name the same object.
//
// Per input: workspace/gen is emptied, ops make dirs, files, symlinks, hard links
// and deep chains in it (model and disk), then forms of targets are resolved both
// ways. Any disagreement in outcome (errno class), object (dev+inode), path
// (readlink of /proc/self/fd/N: the kernel's d_path of what it opened) or classification
// is a model bug.
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "harness/core/text.h"
#include "harness/paths/classify.h"
#include "harness/paths/forms.h"
#include "harness/paths/posix/real_tree.h"

using namespace breakout;
using namespace breakout::paths;

namespace {

// Policies over the same tree: the default deny list, a deny-read entry inside a
// writable root (deny wins), and HOME denied as a whole.
Policy policy_for(std::uint8_t choice) {
  Policy p;
  p.name = "path-model";
  switch (choice % 3) {
    case 0: p.writable_roots = {"extra"}; p.deny_read = default_deny_read(); break;
    case 1: p.writable_roots = {"sibling", "workspace"}; p.deny_read = {"~/.ssh", "workspace/sub dir", "sibling/repo"}; break;
    default: p.deny_read = {"~"}; break;
  }
  return p;
}

// classify() is a pure function of (policy, path, label) and the same few hundred paths of the
// tree come back form after form: its answers are kept instead of recomputed (path_within per
// policy root was ~15% of a short input's time). Direct-mapped slots with buffers reserved up
// front: a replaced answer reuses them, so a miss does not leave the input with more mallocs than
// frees (libFuzzer then re-runs the input and does a leak check: TryDetectingAMemoryLeak).
const Classified& classified(std::size_t policy_index, const ResolvedPolicy& policy, const TreeRoots& roots,
                             const std::string& path, const std::string& label) {
  struct Slot {
    std::string key;
    Classified value;
  };
  static std::vector<Slot> slots = [] {
    std::vector<Slot> v(1024);
    for (Slot& s : v) {
      s.key.reserve(256);
      s.value.object.reserve(128);
    }
    return v;
  }();
  thread_local std::string key;
  key.assign(1, static_cast<char>('0' + policy_index));
  key.append(label).append(1, '\0').append(path);  // neither a label nor a path holds a NUL
  Slot& slot = slots[std::hash<std::string>{}(key) % slots.size()];
  if (slot.key != key) {
    slot.value = classify(path, label, policy, roots);
    slot.key = key;
  }
  return slot.value;
}

void check_form(RealTree& tree, const ModelFs& m, const Form& form, const ResolvedPolicy& policy,
                std::size_t policy_index) {
  // Both answers into buffers kept from form to form (a path per form otherwise, 5,000+ bytes
  // through a deep chain).
  static Resolved want;
  static RealResolved got;
  resolve_form(m, form, want);
  if (want.outcome == Outcome::kUnknown) return;  // left the modelled names: no claim to check
  tree.resolve(form, got);
  // Built only when a check fails (FUZZ_CHECK_MSG evaluates its detail lazily): per form it cost more than the checks.
  const auto what = [&] {
    return describe(form) + " model=" + to_string(want.outcome) + " '" + want.path.substr(0, 300) +
           "' kernel errno=" + std::to_string(got.err) + " '" + got.fd_path.substr(0, 300) + "'";
  };
  FUZZ_CHECK_MSG(outcome_of(got.err) == want.outcome, what());
  if (want.outcome != Outcome::kOk) return;
  const Node& n = m.node(want.node);
  FUZZ_CHECK_MSG(got.dev == n.dev && got.ino == n.ino, what());
  if (want.path.size() >= kPathMax) return;  // d_path stops at PATH_MAX
  // The path is checked once, against the kernel's d_path of the opened fd. realpath(3) of the
  // same string used to be compared with want.path too, but only after this check had passed,
  // i.e. when want.path == d_path already: what it could still catch was glibc's user-space walk
  // (stdlib/canonicalize.c, a readlink(2) per component) disagreeing with the kernel's, which is
  // not the model under test (its one find here was such a glibc limit, realpath-link-plus-rest-
  // past-path-max.bin). Its ~6.5 readlink calls per form were the costliest syscalls of a form.
  FUZZ_CHECK_MSG(got.fd_path_err == 0 && got.fd_path == want.path, what());
  const Classified& model = classified(policy_index, policy, tree.roots(), want.path, n.label);
  // classify() is a pure function of (path, label, policy) and the paths are equal here (checked
  // above), so the kernel's side can only differ through the object's label: classified again
  // only then (one classify per form instead of two; it was ~5% of the time per input).
  const std::string& kernel_label = tree.label_of(got.dev, got.ino);
  if (kernel_label != n.label) {
    const Classified kernel = classify(got.fd_path, kernel_label, policy, tree.roots());
    FUZZ_CHECK_MSG(model == kernel, what() + " region " + to_string(model.region) + " vs " + to_string(kernel.region));
  }
  // Deny wins (docs/policies.md): nothing under a deny_read entry is expected readable.
  if (model.region == Region::kDenyRead) FUZZ_CHECK_MSG(model.read == Expected::kDenied, what());
}

}  // namespace

// Each input runs with the process's cwd in the workspace (RealTree::InWorkspace), and libFuzzer
// writes crash, timeout and OOM artifacts from inside the input, to -artifact_prefix (default
// "./") and -exact_artifact_path: made absolute against the cwd at start, or a find would be
// written into the tree and removed with it. libFuzzer calls this before it parses its flags and
// lets it edit argv (FuzzerDriver.cpp); the new flag goes first, before any
// -ignore_remaining_args.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  static std::vector<std::string> args;
  static std::vector<char*> pointers;
  const std::string cwd = std::filesystem::current_path().string() + "/";
  bool has_prefix = false;
  for (int i = 0; i < *argc; ++i) {
    std::string arg = (*argv)[i];
    for (const std::string flag : {"-artifact_prefix=", "-exact_artifact_path="}) {
      if (i == 0 || arg.compare(0, flag.size(), flag) != 0) continue;
      const bool prefix = flag == "-artifact_prefix=";
      has_prefix = has_prefix || prefix;
      // An empty prefix is the cwd; an empty exact path is no exact path (libFuzzer's default).
      const bool empty = arg.size() == flag.size();
      if ((empty && prefix) || (!empty && arg[flag.size()] != '/')) arg.insert(flag.size(), cwd);
    }
    args.push_back(std::move(arg));
  }
  if (!has_prefix) args.insert(args.begin() + (args.empty() ? 0 : 1), "-artifact_prefix=" + cwd);
  for (std::string& a : args) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  *argc = static_cast<int>(args.size());
  *argv = pointers.data();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static RealTree tree;  // built once; destroyed (and removed) at exit
  // The three policies resolved on the tree once, not per classified path.
  static const ResolvedPolicy policies[3] = {resolve(policy_for(0), tree.roots()), resolve(policy_for(1), tree.roots()),
                                             resolve(policy_for(2), tree.roots())};
  ByteReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  const std::size_t policy_index = in.byte() % 3;
  const ResolvedPolicy& policy = policies[policy_index];
  ModelFs& m = tree.reset();
  const Scope scope = tree.scope();
  const RealTree::InWorkspace in_workspace(tree);  // the cwd for every form of this input
  // The op and the form in buffers kept from input to input: their strings keep their capacity.
  static Op op;
  static Form form;
  // Ops interleaved with forms, so a form can see a symlink dangling and, later, its target made.
  // (One form per input after the ops would reach the same (tree, form) pairs at ~2x the exec/s,
  // but check ~2.3x fewer forms per CPU second: every form would pay for building its tree.)
  for (int step = 0; step < 12 && !in.empty(); ++step) {
    if (in.byte() % 3 != 0) {
      next_op(in, m, scope, op);
      const bool model_ok = apply(m, op);
      const bool real_ok = tree.apply(op, m);
      FUZZ_CHECK_MSG(model_ok == real_ok, "op " + std::to_string(static_cast<int>(op.kind)) + " on '" +
                                               printable_excerpt(op.name, 40) + "' link '" + printable_excerpt(op.link, 200) + "'");
    } else {
      next_form(in, m, scope, form);
      check_form(tree, m, form, policy, policy_index);
    }
  }
  next_form(in, m, scope, form);
  check_form(tree, m, form, policy, policy_index);
  tree.undo();
  return 0;
}
