// The host_object family's rows of the class table (model/class_table.cc): each class's probe, traits and
// rule; its name and enumerator come from host_object.def. Included by class_table.cc only.
#pragma once

#include "harness/classes/host_object/spec_objects.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation_rules.h"

namespace breakout::rules {

// The family's own expectation rules (the shared ones: model/expectation_rules.h).

inline Expectation host_object(const RuleInput& in) { return expect_host_object(in.klass, *in.target, in.policy); }

}  // namespace breakout::rules

namespace breakout::spec {

inline constexpr ClassSpec ProcessReach{.probe = "proc-reach", .targets = true, .witness = true,
    .host_noun = "processes", .expect = rules::host_object};
inline constexpr ClassSpec IpcReach{.probe = "ipc-reach", .targets = true,
    .host_noun = "IPC objects or shared-dir files", .expect = rules::host_object};
inline constexpr ClassSpec KeyRead{.probe = "keyctl", .targets = true, .witness = true,
    .host_noun = "keyrings", .expect = rules::host_object};
inline constexpr ClassSpec TtyInject{.probe = "tiocsti", .targets = true, .witness = true,
    .host_noun = "terminals", .expect = rules::host_object};
inline constexpr ClassSpec DnsQuery{.probe = "dns-query", .targets = true, .witness = true,
    .host_noun = "resolvers", .expect = rules::host_object};
inline constexpr ClassSpec RegistryWrite{.probe = "reg-write", .targets = true,
    .host_noun = "registry keys", .platforms = Platforms::kWindows,
    .platform_why = "the registry exists only on Windows",
    .expect = rules::host_object};
inline constexpr ClassSpec NamedObjectReach{.probe = "win-object", .targets = true,
    .host_noun = "named pipes or events", .platforms = Platforms::kWindows,
    .platform_why = "Win32 named pipes and events exist only on Windows",
    .expect = rules::host_object};
inline constexpr ClassSpec DesktopReach{.probe = "win-desktop", .targets = true,
    .host_noun = "windows or the clipboard of the user's desktop", .platforms = Platforms::kWindows,
    .platform_why = "Win32 windows and the Win32 clipboard exist only on Windows (no X11/Wayland twin yet)",
    .expect = rules::host_object};
inline constexpr ClassSpec RegistryRead{.probe = "reg-read", .targets = true,
    .host_noun = "registry keys (their values are where programs and services keep credentials)",
    .platforms = Platforms::kWindows, .platform_why = "the registry exists only on Windows",
    .expect = rules::host_object};
inline constexpr ClassSpec DeviceRead{.probe = "device-read", .targets = true,
    .host_noun = "raw disks", .platforms = Platforms::kWindows,
    .platform_why = "\\\\.\\PhysicalDrive0 is a Windows device (a Linux twin would read /dev/sda: not written)",
    .expect = rules::host_object};
// ipc: targets (classes/host_object/spec_objects.h): icmp-loopback and icmp-external follow the network field;
// a host link and a host vsock listener are judged there too (docs/scenarios.md, "Socket families").
inline constexpr ClassSpec NetFamily{.probe = "net-family", .targets = true, .witness = true,
    .decided_by = PolicyField::kNetwork,
    .host_noun = "network interfaces (no network mode grants changing the host's)",
    .expect = rules::host_object};

}  // namespace breakout::spec
