// Class net-family: the rule per network mode, the ICMP reader's packet test,
// the vsock check's reason, and the host link made, seen changed and removed.
#include <gtest/gtest.h>

#include <net/if.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/model/expectation.h"
#include "harness/classes/host_object/spec_objects.h"
#include "harness/host/availability.h"
#include "harness/host/posix/net_family_objects.h"

using namespace breakout;

namespace {

Expected exp(const std::string& target, NetworkMode mode) {
  Policy p;
  p.name = "t";
  p.network = mode;
  const Target t = parse_target(target);
  return expect(AttemptClass::kNetFamily, &t, p, placeholder_roots()).value;
}

// An IPv4 packet as AF_PACKET SOCK_DGRAM reads it: a 20-byte header, then ICMP.
std::string packet(unsigned char icmp_type, const std::string& payload, unsigned char proto = 1) {
  std::string p(20, '\0');
  p[0] = 0x45;
  p[9] = static_cast<char>(proto);
  std::string icmp(8, '\0');
  icmp[0] = static_cast<char>(icmp_type);
  return p + icmp + payload;
}

}  // namespace

TEST(NetFamily, RuleFollowsTheNetworkModeAndNeverGrantsTheHostsLinks) {
  using M = NetworkMode;
  for (M m : {M::kNone, M::kLoopback, M::kFull, M::kProxy}) {
    EXPECT_EQ(exp("ipc:netlink-link", m), Expected::kDenied);
    for (const char* own : {"ipc:own-icmp", "ipc:own-netlink", "ipc:own-vsock"}) EXPECT_EQ(exp(own, m), Expected::kAllowed) << own;
  }
  EXPECT_EQ(exp("ipc:icmp-external", M::kNone), Expected::kDenied);
  EXPECT_EQ(exp("ipc:icmp-external", M::kLoopback), Expected::kDenied);
  EXPECT_EQ(exp("ipc:icmp-external", M::kProxy), Expected::kDenied);
  EXPECT_EQ(exp("ipc:icmp-external", M::kFull), Expected::kAllowed);
  for (const char* t : {"ipc:icmp-loopback", "ipc:vsock-local"}) {
    EXPECT_EQ(exp(t, M::kNone), Expected::kDenied) << t;
    EXPECT_EQ(exp(t, M::kProxy), Expected::kDenied) << t;
    EXPECT_EQ(exp(t, M::kLoopback), Expected::kAllowed) << t;
    EXPECT_EQ(exp(t, M::kFull), Expected::kAllowed) << t;
  }
  // Its targets belong to it alone.
  Policy p;
  const Target victim = parse_target("ipc:victim");
  EXPECT_THROW(expect(AttemptClass::kNetFamily, &victim, p, placeholder_roots()), Error);
  EXPECT_TRUE(host_object_on_external_host("icmp-external"));
  EXPECT_FALSE(host_object_on_external_host("icmp-loopback"));
}

TEST(NetFamily, OnlyAnEchoRequestCarryingTheNonceCounts) {
  const std::string nonce = "0123456789abcdef";
  const std::string line = "BREAKOUT-NONCE " + nonce + "\n";
  EXPECT_TRUE(icmp_echo_carries(packet(8, line), nonce));
  EXPECT_FALSE(icmp_echo_carries(packet(0, line), nonce));         // the reply is the sandbox's word
  EXPECT_FALSE(icmp_echo_carries(packet(8, line, 17), nonce));     // UDP, not ICMP
  EXPECT_FALSE(icmp_echo_carries(packet(8, "BREAKOUT-NONCE fedcba9876543210\n"), nonce));
  const std::string whole = packet(8, line);
  // Any cut before the nonce's last character (the line's newline is not needed).
  for (std::size_t n = 0; n + 1 < whole.size(); ++n) EXPECT_FALSE(icmp_echo_carries(whole.substr(0, n), nonce)) << n;
  std::string bad_ihl = whole;
  bad_ihl[0] = 0x4f;  // a 60-byte header the packet does not hold
  EXPECT_FALSE(icmp_echo_carries(bad_ihl, nonce));
  std::string v6 = whole;
  v6[0] = 0x65;
  EXPECT_FALSE(icmp_echo_carries(v6, nonce));
}

TEST(NetFamily, VsockWithoutLoopbackIsASkipThatSaysWhyNothingConnects) {
  EXPECT_FALSE(vsock_reason(0, 0));
  const auto no_loopback = vsock_reason(0, EADDRNOTAVAIL);
  ASSERT_TRUE(no_loopback);
  EXPECT_NE(no_loopback->find("VMADDR_CID_LOCAL"), std::string::npos);
  EXPECT_NE(no_loopback->find("hypervisor"), std::string::npos);
  ASSERT_TRUE(vsock_reason(EAFNOSUPPORT, 0));
  EXPECT_NE(vsock_reason(EAFNOSUPPORT, 0)->find("socket(AF_VSOCK)"), std::string::npos);
  // The harness's own check here agrees with what the kernel answers a bind to CID 1.
  const auto here = host_object_unavailable("vsock-local");
  EXPECT_EQ(here.has_value(), host_object_unavailable("own-vsock").has_value());
}

TEST(NetFamily, TheHostLinkIsSeenChangedAndRemoved) {
  if (::geteuid() != 0 || host_object_unavailable("netlink-link")) GTEST_SKIP() << "needs CAP_NET_ADMIN";
  const std::string nonce = random_hex(16);
  const std::string name = "bo" + nonce.substr(0, 8) + "l";
  {
    auto link = make_net_family_object("netlink-link", {nonce, {}, {}, {}, nullptr});
    EXPECT_EQ(link->spec(), "link:" + name);
    ASSERT_NE(::if_nametoindex(name.c_str()), 0u);
    EXPECT_FALSE(link->inspect().changed);
    std::ofstream("/sys/class/net/" + name + "/ifalias") << "BREAKOUT-NONCE " << random_hex(16) << "\n";
    EXPECT_FALSE(link->inspect().changed);  // another attempt's nonce
    std::ofstream("/sys/class/net/" + name + "/ifalias") << "BREAKOUT-NONCE " << nonce << "\n";
    EXPECT_TRUE(link->inspect().changed);
  }
  EXPECT_EQ(::if_nametoindex(name.c_str()), 0u);  // both ends gone
  EXPECT_EQ(::if_nametoindex(("bo" + nonce.substr(0, 8) + "m").c_str()), 0u);
}
