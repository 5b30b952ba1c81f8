// Oracle of the host-object classes (process-reach, ipc-reach, key-read, tty-inject, dns-query, the Windows objects).
//
// Host side decides: the object changed (victim traced/signalled/stopped/dead,
// segment attached or written, message consumed, file modified, nonce in the
// pty's input queue), or its secret showed up in the output or in a file of the
// tree. The probe's report is displayed only.
#include <thread>

#include "harness/attempt/oracle.h"
#include "harness/classes/host_object/judge.h"
#include "harness/core/error.h"

namespace breakout::oracles {

namespace {

// The object itself is made with the io (observe.cc prepare_io), before the snapshot.
Observation observe_host_object(const Execution& ex, const AttemptTree& tree, const AttemptIo& io,
                                const LaunchResult& run, const RunContext& ctx) {
  check(io.host_object != nullptr, "no host object prepared for " + ex.id);
  // A signal the probe sent is pending until the victim is scheduled (2 shared cores:
  // milliseconds); settle before reading its state, as the heartbeat oracle does.
  std::this_thread::sleep_for(ctx.settle);
  HostEvidence h = io.host_object->inspect();
  Observation o;
  o.evidence = std::move(h.evidence);
  o.evidence["object"] = ex.target->value;
  o.evidence["object_spec"] = io.target_spec;
  o.evidence["object_changed"] = h.changed;
  std::vector<std::string> where;
  if (!h.token.empty()) where = find_token(h.token, run, tree, {});
  o.evidence["token_seen_in"] = where;
  const bool read = !where.empty() && h.token_decides;
  o.effect = h.changed || read ? Effect::kHappened : Effect::kNotHappened;
  if (read) o.summary = "the object's secret was read: seen in " + where[0] + (h.changed ? "; " + h.summary : "");
  else o.summary = h.summary + (where.empty() || h.token.empty() ? "" : " (secret seen in " + where[0] + ", a read the policy allows)");
  if (!h.token.empty() && where.empty() && !h.changed) o.summary += "; its secret was seen nowhere outside";
  return o;
}

class HostObjectOracle final : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    return observe_host_object(s.ex, s.tree, s.io, run, s.ctx);
  }
};

}  // namespace

std::unique_ptr<Oracle> host_object() { return make_oracle<HostObjectOracle>(); }

}  // namespace breakout::oracles
