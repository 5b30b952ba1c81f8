// The net family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from net.def. Included by class_table.cc only.
#pragma once

#include "harness/core/error.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::rules {

// The family's own expectation rules (the shared ones: model/expectation_rules.h).

// bind-alias-connect: a bind mount of a path socket is the same socket (mount(2) MS_BIND), and
// connecting to it needs write permission on it (unix(7)), so the write rule decides where the
// alias sits, whatever the network mode, as for the original (expect_connect's host-socket).
inline Expectation bind_alias_connect(const RuleInput& in) {
  const Target& t = aimed(in, TargetKind::kEndpoint, "an endpoint");
  const char* alias = bind_alias_policy_path(t.value);
  if (alias == nullptr)
    throw Error("bad-target", "bind-alias-connect aims at net:unix-outside or net:unix-workspace, not " + t.text);
  Expectation e = write_at(resolve_policy_path(alias, in.roots), resolve(in.policy, in.roots));
  e.why = "a bind mount of a socket is the same socket, and connecting is a write on it (unix(7)): the alias is " + e.why;
  return e;
}

// Through the sandbox's proxy (class proxy-connect): under network = "proxy" the proxy admits the
// destination the spawner was told to allow and nothing else; under any other mode the route does
// not change what may be reached (a probe with no proxy to use connects directly, as curl does).
inline Expectation proxy_connect(const RuleInput& in) {
  const std::string& endpoint = aimed(in, TargetKind::kEndpoint, "an endpoint").value;
  if (in.policy.network == NetworkMode::kProxy && endpoint_reach(endpoint) == "external") {
    if (endpoint == "proxy-allowed")
      return {Expected::kAllowed, "network = proxy: the sandbox's proxy admits the destination it was told to allow"};
    return {Expected::kDenied, "network = proxy: the sandbox's proxy admits only the destination it was told to allow"};
  }
  // An allowlisted name that resolves to loopback (proxy.name-loopback): the proxy runs on the
  // host, so dialling that address would hand the box every service on the host's loopback.
  if (in.policy.network == NetworkMode::kProxy && endpoint_reach(endpoint) == "loopback")
    return {Expected::kDenied, "network = proxy: the sandbox's proxy admits allowlisted destinations, never the host's "
                               "loopback, whatever an allowlisted name resolves to"};
  return connect(in);
}

}  // namespace breakout::rules

namespace breakout::spec {

inline constexpr ClassSpec NetConnect{.probe = "net-connect", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::connect};
inline constexpr ClassSpec IoUringConnect{.probe = "io-uring", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .platforms = Platforms::kLinux, .platform_why = "io_uring is Linux only",
    .needs = Requirement::kIoUring,
    .expect = rules::connect};
inline constexpr ClassSpec RealNetConnect{.probe = "net-connect", .targets = true, .real_host = true,
    .witness = true, .decided_by = PolicyField::kNetwork, .expect = rules::connect};
inline constexpr ClassSpec ProxyConnect{.probe = "net-connect", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .via_proxy = true,
    .expect = rules::proxy_connect};
// A connect to a harness-made bind mount of its listener's socket (classes/net/bind_alias.cc): the
// same socket under a name the sandbox may not know to hide, judged by the write rule there.
inline constexpr ClassSpec BindAliasConnect{.probe = "net-connect", .targets = true,
    .witness = true, .decided_by = PolicyField::kWritable, .alone = true, .expect = rules::bind_alias_connect};
// Inbound is judged by the connect rule: the host's loopback reaches the sandbox's exactly
// when the sandbox's reaches the host's (one network namespace, or none between them).
inline constexpr ClassSpec NetInbound{.probe = "net-listen", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::connect};

}  // namespace breakout::spec
