// The planner: ids, groups, expectations and skip reasons for every execution.
#include "harness/run/plan.h"

#include <set>

#include "harness/core/text.h"
#include "harness/model/class_spec.h"
#include "harness/classes/host_object/spec_objects.h"
#include "harness/host/availability.h"
#include "harness/model/mechanism.h"
#include "harness/host/net_listeners.h"
#include "harness/spawner/spawner.h"

namespace breakout {

namespace {

std::string skip_reason(const Attempt& a, const Policy& p, const std::optional<Target>& target,
                        const Spawner& spawner, const NonceListeners* listeners, const PlanOptions& o) {
  bool on_platform = false;
  for (const auto& pl : a.platforms) on_platform = on_platform || pl == o.platform;
  if (!on_platform) return "attempt does not apply to platform " + o.platform;
  if (auto why = spawner.unavailable_reason()) return *why;
  if (auto why = spawner.cannot_express_execution(p, a.klass, target ? &*target : nullptr)) return *why;
  if (needs_sessions(a.klass) && !spawner.has_sessions())
    return "needs a spawner with sessions (boot, exec, shutdown: a driver, docs/drivers.md); " + spawner.name() +
           " runs one command per exec";
  if (is_fs_api(a.klass))
    if (auto why = spawner.no_fs_api_reason()) return *why;
  // Unix endpoints (workspace, outside, abstract) get a listener per attempt (observe.cc).
  const std::string reach = target && target->kind == TargetKind::kEndpoint ? endpoint_reach(target->value) : "";
  if (reach == "workspace-socket" || reach == "host-socket" || reach == "abstract-socket")
    if (auto why = UnixNonceListener::unavailable_reason()) return *why;
  // real-external is the user's `breakout listen`, checked by the run's preflight (observe.cc skips without one).
  if ((reach == "loopback" || reach == "external" || reach == "host-address") && target->value != "real-external") {
    if (!listeners) return "no network listeners in this run";
    if (!listeners->endpoint(target->value)) return listeners->skip_reason(target->value);
  }
  if (auto why = class_unavailable(a.klass)) return *why;  // e.g. no io_uring in this kernel
  if (target && target->kind == TargetKind::kHostObject)  // the kernel's reason (no keyring, TIOCSTI disabled)
    if (auto why = host_object_unavailable(target->value)) return *why;
  if (target && target->kind == TargetKind::kHostObject && host_object_on_external_host(target->value)) {
    if (!listeners) return "no network listeners in this run";
    if (!listeners->endpoint("udp4-external")) return listeners->skip_reason("udp4-external");  // the namespace's reason
  }
  return "";
}

}  // namespace

std::vector<Execution> plan_executions(const Suite& suite, const Spawner& spawner, const NonceListeners* listeners,
                                       const PlanOptions& options) {
  std::vector<Execution> all;
  const TreeRoots roots = placeholder_roots();
  for (const auto& policy : suite.policies) {
    for (const auto& attempt : suite.attempts) {
      if (!runs_under(attempt, policy)) continue;
      std::vector<std::optional<Target>> targets;
      if (attempt.targets.empty()) targets.push_back(std::nullopt);
      for (const auto& t : attempt.targets) targets.push_back(parse_target(t));
      for (const auto& target : targets) {
        Execution ex;
        ex.attempt = &attempt;
        ex.policy = &policy;
        ex.target = target;
        // controls_from: this attempt's denials are judged with that attempt's controls.
        ex.group = (attempt.controls_from.empty() ? attempt.id : attempt.controls_from) + "@" + policy.name;
        ex.id = attempt.id + "@" + policy.name + (target ? "[" + target->text + "]" : "");
        ex.expectation = expect(attempt.klass, target ? &*target : nullptr, policy, roots);
        ex.skip_reason = skip_reason(attempt, policy, target, spawner, listeners, options);
        for (const Mechanism m : mechanisms_needed(attempt.needs, target ? &*target : nullptr))
          if (auto why = spawner.refuses(m, policy); why && ex.refused.empty()) ex.refused = *why;
        all.push_back(std::move(ex));
      }
    }
  }
  // A group whose control the spawner may refuse: its denials leave a witness instead (witness.h).
  std::set<std::string> refused_groups;
  for (const auto& ex : all)
    if (!ex.refused.empty() && ex.skip_reason.empty() && ex.expectation.value == Expected::kAllowed)
      refused_groups.insert(ex.group);
  for (auto& ex : all)
    ex.witness = ex.expectation.value == Expected::kDenied && refused_groups.count(ex.group) &&
                 class_spec(ex.attempt->klass).witness;
  // --only: the matching executions and the controls of their groups. Not the group's other
  // denials: a group can hold other attempts' denials too (controls_from: exec.fail-open borrows
  // fs.write.create's workspace write), and selecting one attempt must not run another.
  if (!options.only.empty()) {
    std::set<std::string> groups;
    const auto matches = [&](const Execution& ex) {
      return glob_match(options.only, ex.attempt->id) || glob_match(options.only, ex.id);
    };
    for (const auto& ex : all)
      if (matches(ex)) groups.insert(ex.group);
    std::erase_if(all, [&](const Execution& ex) {
      return !matches(ex) && (!groups.count(ex.group) || ex.expectation.value == Expected::kDenied);
    });
  }
  for (std::size_t i = 0; i < all.size(); ++i) all[i].index = static_cast<int>(i);
  return all;
}

}  // namespace breakout
