// collateral_escape: the tree outside the writable roots, and the nonce at denied listeners.
#include "harness/attempt/collateral.h"

#include <algorithm>

#include "harness/core/text.h"
#include "harness/model/expectation.h"
#include "harness/model/expectation_rules.h"
#include "harness/host/net_listeners.h"

namespace breakout {

namespace {

// The class oracle already charged every change outside the writable roots to a deny attempt
// (fs-write and the classes that write): nothing more to look for there.
bool tree_already_judged(const Execution& ex, const Observation& seen) {
  return seen.outside_changes && ex.expectation.value == Expected::kDenied;
}

// Outside the writable roots, less the files a harness-owned host object writes itself.
std::vector<FsChange> changes_outside(const AttemptTree& tree, const ResolvedPolicy& policy, const Snapshot& before_exec,
                                      const AttemptIo& io, const Observation& seen) {
  std::vector<FsChange> outside;
  if (seen.outside_changes) {
    outside = *seen.outside_changes;
  } else {
    Snapshot after = take_snapshot(tree.roots().tree);
    outside = WritableRoots(tree, policy).outside(diff_snapshots(before_exec, after));
    tree.keep_after_snapshot(std::move(after));
  }
  // A changed link count alone is a second name made or removed elsewhere (the hard-link path
  // forms link a file into the workspace): the new name's own place is in the snapshot, and
  // judged there if it is outside the roots. The deny oracles still charge it (observe.cc).
  std::erase_if(outside, [](const FsChange& c) { return c.kind == "modified" && c.detail == "nlink"; });
  if (!io.host_object) return outside;
  std::vector<std::string> own;
  for (const auto& f : io.host_object->own_files()) own.push_back(f.lexically_relative(tree.roots().tree).generic_string());
  std::erase_if(outside, [&](const FsChange& c) { return std::find(own.begin(), own.end(), c.path) != own.end(); });
  return outside;
}

// Listeners other than the attempt's own target that got its nonce, and that the policy denies.
std::vector<std::string> denied_listeners_reached(const Execution& ex, const AttemptTree& tree, const AttemptIo& io,
                                                  const RunContext& ctx) {
  std::vector<std::string> out;
  if (ctx.listeners == nullptr) return out;
  const std::string own = ex.target && ex.target->kind == TargetKind::kEndpoint ? ex.target->value : "";
  for (const std::string& name : ctx.listeners->received(io.nonce)) {
    if (name == own) continue;  // the class oracle judged that one
    const Target t{TargetKind::kEndpoint, "net:" + name, name};
    // Judged by the route the attempt takes: the nonce of a class that goes through the proxy
    // (ClassSpec::via_proxy: proxy-connect) may reach what its proxy admits (proxy.host-header
    // names the allowed destination as a decoy), by the class's own rule; any other execution's
    // only what a direct connect may reach (rules::connect).
    const ClassSpec& spec = class_spec(ex.attempt->klass);
    const RuleInput in{ex.attempt->klass, &t, *ex.policy, tree.roots()};
    const Expectation e = spec.via_proxy ? expect(ex.attempt->klass, &t, *ex.policy, tree.roots()) : rules::connect(in);
    if (e.value == Expected::kDenied) out.push_back(name);
  }
  return out;
}

}  // namespace

std::optional<Collateral> collateral_escape(const Execution& ex, const AttemptTree& tree, const ResolvedPolicy& policy,
                                            const Snapshot& before_exec, const AttemptIo& io, const RunContext& ctx,
                                            const Observation& seen) {
  std::vector<FsChange> outside;
  if (!tree_already_judged(ex, seen)) outside = changes_outside(tree, policy, before_exec, io, seen);
  const std::vector<std::string> listeners = denied_listeners_reached(ex, tree, io, ctx);
  if (outside.empty() && listeners.empty()) return std::nullopt;
  Collateral c;
  nlohmann::json changes = nlohmann::json::array();
  for (std::size_t i = 0; i < outside.size() && i < 32; ++i) changes.push_back(describe_change(outside[i]));
  c.evidence = {{"changes_outside_writable_roots", changes}, {"denied_listeners_reached", listeners}};
  // The role as results.json names it (role_of), so the reason and the record agree.
  const std::string during = std::string("during this execution (role ") + role_of(ex.expectation.value) + "), ";
  c.summary = !outside.empty() ? during + "the host changed outside the writable roots: " +
                                     printable_excerpt(outside[0].path.empty() ? "<tree root>" : outside[0].path, 256) +
                                     " " + outside[0].kind + " (" + printable_excerpt(outside[0].detail, 128) + ")"
                               : during + "the nonce reached listener " + listeners[0] + ", which the policy denies";
  return c;
}

}  // namespace breakout
