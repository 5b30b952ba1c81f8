// Which targets need which refusable mechanism: the one place that knows it.
#include "harness/model/mechanism.h"

#include <utility>

namespace breakout {

namespace {
// Every mechanism and its name in profiles and scenario files, in enum order.
constexpr std::pair<Mechanism, const char*> kNames[] = {
    {Mechanism::kAfUnix, "af_unix"}, {Mechanism::kIoUring, "io_uring"},
    {Mechanism::kPtrace, "ptrace"}, {Mechanism::kProcfs, "procfs"}, {Mechanism::kI386Abi, "i386_abi"},
    {Mechanism::kIcmp, "icmp"}, {Mechanism::kNetlink, "netlink"}, {Mechanism::kMknod, "mknod"},
    {Mechanism::kRenameExchange, "rename_exchange"}, {Mechanism::kHostProc, "host_proc"},
    {Mechanism::kXattr, "xattr"}, {Mechanism::kProcessVm, "process_vm"},
    {Mechanism::kKeyring, "keyring"}, {Mechanism::kTiocsti, "tiocsti"}};
}  // namespace

const char* to_string(Mechanism m) {
  for (const auto& [mech, name] : kNames)
    if (mech == m) return name;
  return "?";
}

std::optional<Mechanism> mechanism_from(const std::string& s) {
  for (const auto& [mech, name] : kNames)
    if (s == name) return mech;
  return std::nullopt;
}

std::string mechanism_names() {
  std::string out;
  for (const auto& [mech, name] : kNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::optional<Mechanism> mechanism_of(const Target& target) {
  if (target.kind == TargetKind::kEndpoint) {
    const std::string reach = endpoint_reach(target.value);
    if (reach == "workspace-socket" || reach == "host-socket" || reach == "abstract-socket") return Mechanism::kAfUnix;
  }
  // dns-query's control: a resolver on a unix datagram socket in the workspace (host/posix/host_objects.cc).
  if (target.kind == TargetKind::kHostObject && target.value == "dns-workspace") return Mechanism::kAfUnix;
  // net-family (scenarios/attempts/net_families.toml): what each echo or netlink request needs.
  if (target.kind == TargetKind::kHostObject &&
      (target.value == "own-icmp" || target.value == "icmp-loopback" || target.value == "icmp-external"))
    return Mechanism::kIcmp;
  if (target.kind == TargetKind::kHostObject && (target.value == "own-netlink" || target.value == "netlink-link"))
    return Mechanism::kNetlink;
  return std::nullopt;
}

std::vector<Mechanism> mechanisms_needed(const std::vector<Mechanism>& attempt_needs, const Target* target) {
  std::vector<Mechanism> out = attempt_needs;
  if (target)
    if (const auto m = mechanism_of(*target)) out.push_back(*m);
  return out;
}

}  // namespace breakout
