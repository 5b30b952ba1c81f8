// Which targets need which refusable mechanism: the one place that knows it.
#include "harness/model/mechanism.h"

namespace breakout {

const char* to_string(Mechanism m) {
  switch (m) {
    case Mechanism::kAfUnix: return "af_unix";
    case Mechanism::kIoUring: return "io_uring";
    case Mechanism::kPtrace: return "ptrace";
    case Mechanism::kProcfs: return "procfs";
  }
  return "?";
}

std::optional<Mechanism> mechanism_from(const std::string& s) {
  if (s == "af_unix") return Mechanism::kAfUnix;
  if (s == "io_uring") return Mechanism::kIoUring;
  if (s == "ptrace") return Mechanism::kPtrace;
  if (s == "procfs") return Mechanism::kProcfs;
  return std::nullopt;
}

std::optional<Mechanism> mechanism_of(const Target& target) {
  if (target.kind == TargetKind::kEndpoint) {
    const std::string reach = endpoint_reach(target.value);
    if (reach == "workspace-socket" || reach == "host-socket" || reach == "abstract-socket") return Mechanism::kAfUnix;
  }
  // dns-query's control: a resolver on a unix datagram socket in the workspace (host_object.cc).
  if (target.kind == TargetKind::kHostObject && target.value == "dns-workspace") return Mechanism::kAfUnix;
  return std::nullopt;
}

std::vector<Mechanism> mechanisms_needed(const std::vector<Mechanism>& attempt_needs, const Target* target) {
  std::vector<Mechanism> out = attempt_needs;
  if (target)
    if (const auto m = mechanism_of(*target)) out.push_back(*m);
  return out;
}

}  // namespace breakout
