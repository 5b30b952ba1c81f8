// EndpointTable and open_local_endpoints: the endpoint names, specs and skip reasons both platforms' listeners give.
#include "harness/host/endpoint_table.h"

#include <gtest/gtest.h>

#include <set>

namespace breakout {
namespace {

TEST(EndpointTable, SpellsTcpAndUdpSpecsWithBracketsForIpv6) {
  EndpointTable t;
  t.bound("tcp4-loopback", true, IpFamily::v4, "127.0.0.1", 40123, true);
  t.bound("udp6-loopback", false, IpFamily::v6, "::1", 40124, true);
  t.bound("tcp4-host", true, IpFamily::v4, "192.0.2.2", 1, false);
  ASSERT_TRUE(t.find("tcp4-loopback"));
  EXPECT_EQ(t.find("tcp4-loopback")->spec, "tcp:127.0.0.1:40123");
  EXPECT_EQ(t.find("udp6-loopback")->spec, "udp:[::1]:40124");
  EXPECT_TRUE(t.find("udp6-loopback")->loopback);
  EXPECT_FALSE(t.find("tcp4-host")->loopback);
  EXPECT_EQ(t.find("tcp4-host")->name, "tcp4-host");
  EXPECT_EQ(t.skip_reason("tcp4-loopback"), "") << "an endpoint that exists has no skip reason";
}

TEST(EndpointTable, ASkippedOrUnknownEndpointIsAbsentAndSaysWhy) {
  EndpointTable t;
  t.skip("tcp6-loopback", "socket: Address family not supported by protocol");
  EXPECT_FALSE(t.find("tcp6-loopback"));
  EXPECT_EQ(t.skip_reason("tcp6-loopback"), "socket: Address family not supported by protocol");
  EXPECT_FALSE(t.find("bogus"));
  EXPECT_EQ(t.skip_reason("bogus"), "unknown endpoint 'bogus'");
}

TEST(EndpointTable, ExternalEndpointsSkipWithTheReasonOrNotRequested) {
  EndpointTable with_reason;
  with_reason.skip_external("ip: not found");
  EXPECT_EQ(with_reason.skip_reason("tcp4-external"), "external host unavailable: ip: not found");
  EXPECT_EQ(with_reason.skip_reason("udp4-external"), "external host unavailable: ip: not found");
  EndpointTable without;
  without.skip_external("");
  EXPECT_EQ(without.skip_reason("tcp4-external"), "external host unavailable: not requested");
}

TEST(OpenLocalEndpoints, BindsLoopbackBothFamiliesAndTheHostAddressOrSkipsIt) {
  EndpointTable t;
  struct Recorder {
    std::set<std::string> bound;
    void add(EndpointTable&, const std::string& name, IpFamily ip, bool stream, const std::string& addr,
             bool loopback) {
      bound.insert(name);
      EXPECT_EQ(loopback, name.find("loopback") != std::string::npos) << name;
      EXPECT_EQ(stream, name.rfind("tcp", 0) == 0) << name;
      EXPECT_EQ(ip == IpFamily::v6, name.find('6') != std::string::npos) << name;
      if (name == "tcp4-host") {
        EXPECT_EQ(addr, "192.0.2.2");
      }
      if (name == "tcp6-loopback") {
        EXPECT_EQ(addr, "::1");
      }
    }
  } recorder;
  open_local_endpoints(t, recorder, [](IpFamily ip, std::string* why) -> std::optional<std::string> {
    if (ip == IpFamily::v4) return std::string("192.0.2.2");
    *why = "no global IPv6 address";
    return std::nullopt;
  });
  EXPECT_EQ(recorder.bound, (std::set<std::string>{"tcp4-loopback", "udp4-loopback", "tcp6-loopback", "udp6-loopback",
                                          "tcp4-host"}));
  EXPECT_EQ(t.skip_reason("tcp6-host"), "no global IPv6 address");
}

}  // namespace
}  // namespace breakout
