// Class recon: side-by-side rows (inside vs outside) and the outside view judged against the policy's promise.
#include "harness/host/recon_compare.h"

#include "harness/core/text.h"

namespace breakout {

namespace {

using nlohmann::json;

// The fields of both shapes (probes/recon.cc, probes/win/recon.cc, host/process_view.h).
constexpr const char* kFields[] = {
    "/status/CapEff", "/status/CapPrm", "/status/CapInh", "/status/CapBnd", "/status/CapAmb",
    "/status/NoNewPrivs", "/status/Seccomp", "/status/Seccomp_filters",
    "/ns/net", "/ns/mnt", "/ns/pid", "/ns/pid_for_children", "/ns/user", "/ns/uts", "/ns/ipc", "/ns/cgroup",
    "/ns/time", "/ns/time_for_children",
    "/user", "/integrity", "/integrity_name", "/restricted", "/restricting_sids", "/privileges", "/app_container",
    "/session_id", "/in_job"};

// A hostile value as a bounded printable string (strings as they are, the rest as JSON text).
std::string shown(const json& v) {
  return printable_excerpt(v.is_string() ? v.get<std::string>() : v.dump(), 512);
}

const json* at(const json& j, const char* pointer) {
  if (!j.is_object()) return nullptr;
  try {  // a hostile report may put a string where an object belongs
    const json::json_pointer p(pointer);
    return j.contains(p) ? &j.at(p) : nullptr;
  } catch (const json::exception&) {
    return nullptr;
  }
}

}  // namespace

json side_by_side(const json& inside, const json& outside) {
  json rows = json::array();
  for (const char* f : kFields) {
    const json* in = at(inside, f);
    const json* out = at(outside, f);
    if (in == nullptr || out == nullptr) continue;
    rows.push_back({{"field", f}, {"inside", shown(*in)}, {"outside", shown(*out)}, {"agree", *in == *out}});
  }
  return rows;
}

ReconFinding judge_recon(NetworkMode network, const json& views, const json& host) {
  ReconFinding f;
  const std::string m = std::string("network = ") + to_string(network);
  const bool has_namespaces = host.is_object() && host.contains("ns");  // Linux; Windows has none
  if (network != NetworkMode::kNone || !has_namespaces) {
    f.not_applicable = "informational: " + m +
                       (network != NetworkMode::kNone ? " promises nothing recon can check from outside"
                                                      : " is not a namespace here: nothing in the process token shows it") +
                       "; the outside view is in the evidence";
    return f;
  }
  // namespaces(7): two processes are in the same namespace iff the /proc/<pid>/ns links name the
  // same inode. policy.h: network = none is "a fresh empty netns"; sharing the host's also shares
  // its abstract unix sockets (unix(7)), which expectation.cc denies under none.
  const std::string promise = m + ": the process must not share the host's network namespace";
  const json* host_net = at(host, "/ns/net");
  int held = 0, missing = 0, unchecked = 0;
  for (const auto& v : views) {
    const json* net = at(v, "/ns/net");
    json c = {{"check", "network-namespace"}, {"promise", promise}, {"pid", v.value("pid", -1)}};
    if (host_net == nullptr || net == nullptr || !net->is_string() || !host_net->is_string()) {
      c["outcome"] = "unchecked";
      c["detail"] = host_net == nullptr ? "the harness's own /proc/self/ns/net was unreadable"
                                        : "its /proc/<pid>/ns/net was unreadable from the host";
      ++unchecked;
    } else if (*net == *host_net) {
      c["outcome"] = "missing";
      c["detail"] = "in the host's network namespace " + shown(*net);
      ++missing;
    } else {
      c["outcome"] = "held";
      c["detail"] = "in " + shown(*net) + ", the host is in " + shown(*host_net);
      ++held;
    }
    f.checks.push_back(std::move(c));
  }
  if (missing > 0) {
    f.effect = Effect::kHappened;
    f.summary = "seen from the host, the probe shares the host's network namespace " + shown(*host_net) + " (" + m + ")";
  } else if (held > 0 && unchecked == 0) {
    f.effect = Effect::kNotHappened;
    f.summary = "seen from the host, the probe is in its own network namespace (" + m + ")";
  } else {
    f.effect = Effect::kUnknown;
    f.summary = "the probe's network namespace could not be read from the host";
  }
  return f;
}

}  // namespace breakout
