// Host objects of class net-family: an ICMP reader, a harness-owned link, a vsock listener.
//
//   icmp-loopback, icmp-external: an AF_PACKET reader (SOCK_DGRAM, ETH_P_IP, a classic BPF
//     filter that keeps ICMP echo requests only) on the host's `lo`, or inside the external
//     host's namespace (ExternalHost::socket_in_namespace); the nonce in an echo request's
//     payload decides, whatever answered.
//   netlink-link: a veth pair "bo<tag>l"/"bo<tag>m" the harness makes in the host's namespace
//     through NETLINK_ROUTE (down, no address) and deletes in its destructor; the alias
//     ("BREAKOUT-NONCE <nonce>", IFLA_IFALIAS) read back from /sys/class/net decides.
//   vsock-local: a listener bound to VMADDR_CID_LOCAL only (never reachable from the hypervisor);
//     the nonce read from a connection decides.
//   own-icmp, own-netlink, own-vsock: the probe's own (host/own_object.h).
// Every read is bounded; everything made here is removed by the destructor, also on unwinding.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/host/host_objects.h"

namespace breakout {

bool is_net_family_object(const std::string& name);
std::unique_ptr<HostObject> make_net_family_object(const std::string& name, const HostObjectSetup& setup);
// The harness's own check, asked at plan time (a skip with this reason, never a pass).
std::optional<std::string> net_family_unavailable(const std::string& name);

// Whether `ip_packet` (from the IPv4 header on, as an AF_PACKET SOCK_DGRAM socket reads it) is
// an ICMP echo request whose payload holds "BREAKOUT-NONCE <nonce>". Hostile bytes: any length.
bool icmp_echo_carries(std::string_view ip_packet, const std::string& nonce);

// Why no vsock loopback can be used here, from a bind(2) of an AF_VSOCK stream socket to
// VMADDR_CID_LOCAL (EADDRNOTAVAIL: no loopback transport). `socket_errno`/`bind_errno` are 0 when
// the call worked; nullopt when both did.
std::optional<std::string> vsock_reason(int socket_errno, int bind_errno);

}  // namespace breakout
