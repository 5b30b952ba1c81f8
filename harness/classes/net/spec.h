// The net family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from net.def. Included by class_table.cc only.
#pragma once

#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::spec {

inline constexpr ClassSpec NetConnect{.probe = "net-connect", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::connect};
inline constexpr ClassSpec IoUringConnect{.probe = "io-uring", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::connect};
inline constexpr ClassSpec RealNetConnect{.probe = "net-connect", .targets = true, .real_host = true,
    .witness = true, .decided_by = PolicyField::kNetwork, .expect = rules::connect};
inline constexpr ClassSpec ProxyConnect{.probe = "net-connect", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::proxy_connect};
// A connect to a harness-made bind mount of its listener's socket (classes/net/bind_alias.cc): the
// same socket under a name the sandbox may not know to hide, judged by the write rule there.
inline constexpr ClassSpec BindAliasConnect{.probe = "net-connect", .targets = true,
    .witness = true, .decided_by = PolicyField::kWritable, .expect = rules::bind_alias_connect};
// Inbound is judged by the connect rule: the host's loopback reaches the sandbox's exactly
// when the sandbox's reaches the host's (one network namespace, or none between them).
inline constexpr ClassSpec NetInbound{.probe = "net-listen", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork, .expect = rules::connect};

}  // namespace breakout::spec
