// probes/common/proxy_target.h: net-connect's target syntax and curl's proxy choice, with a fake environment.
#include "probes/common/proxy_target.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace breakout::probe {
namespace {

// The probes' lookup is getenv (POSIX) or GetEnvironmentVariableW (Windows); here a map,
// case-sensitive like getenv. Windows' case-insensitive names are its lookup's doing
// (tests/win/net_reach_test.cc, HttpTargetHonoursHttpProxyInEitherCase).
std::map<std::string, std::string> g_env;
std::string fake_env(const char* name) {
  const auto it = g_env.find(name);
  return it == g_env.end() ? "" : it->second;
}

NetTarget target(const std::string& spec) {
  const auto t = parse_net_target(spec);
  EXPECT_TRUE(t.has_value()) << spec;
  return t.value_or(NetTarget{});
}

TEST(ProxyTarget, ParsesEachTargetForm) {
  NetTarget t = target("tcp:127.0.0.1:8080");
  EXPECT_EQ(t.proto, "tcp");
  EXPECT_EQ(t.scheme, "tcp");
  EXPECT_EQ(t.host, "127.0.0.1");
  EXPECT_EQ(t.port, "8080");
  t = target("udp:[::1]:53");
  EXPECT_EQ(t.proto, "udp");
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.port, "53");
  t = target("unix:@abstract");
  EXPECT_EQ(t.proto, "unix");
  EXPECT_EQ(t.path, "@abstract");
  t = target("http://example.test/path:9");
  EXPECT_EQ(t.proto, "tcp");
  EXPECT_EQ(t.scheme, "http");
  EXPECT_EQ(t.host, "example.test");
  EXPECT_EQ(t.port, "80");
  t = target("https://[fd00::2]:8443/x");
  EXPECT_EQ(t.scheme, "https");
  EXPECT_EQ(t.host, "fd00::2");
  EXPECT_EQ(t.port, "8443");
  EXPECT_EQ(target("https://h").port, "443");
}

TEST(ProxyTarget, RejectsMalformedTargets) {
  for (const char* bad : {"", "tcp:", "tcp:host", "tcp::1:80", "tcp:h:0", "tcp:h:65536", "tcp:h:8a", "tcp:h:123456",
                          "udp:[::1:53", "unix:", "ftp://h", "sctp:h:1", "tcp:[::1]x80"})
    EXPECT_FALSE(parse_net_target(bad).has_value()) << bad;
  EXPECT_TRUE(parse_net_target("tcp:h:65535").has_value());
}

TEST(ProxyTarget, NoVariableMeansDirect) {
  g_env.clear();
  const ProxyChoice c = pick_proxy(target("tcp:127.0.0.1:1"), fake_env);
  EXPECT_EQ(c.var, "");
  EXPECT_FALSE(c.no_proxy_matched);
}

TEST(ProxyTarget, HttpTakesLowerCaseHttpProxyOnly) {
  g_env = {{"HTTP_PROXY", "127.0.0.1:9"}};  // httpoxy: curl ignores the upper-case name
  EXPECT_EQ(pick_proxy(target("http://h"), fake_env).var, "");
  g_env = {{"http_proxy", "http://user:pw@127.0.0.1:3128/"}, {"ALL_PROXY", "10.0.0.1:1"}};
  const ProxyChoice c = pick_proxy(target("http://h"), fake_env);
  EXPECT_EQ(c.var, "http_proxy");
  EXPECT_TRUE(c.parsed);
  EXPECT_EQ(c.host, "127.0.0.1");
  EXPECT_EQ(c.port, "3128");
}

TEST(ProxyTarget, OtherSchemesTakeHttpsProxyThenAllProxy) {
  g_env = {{"HTTPS_PROXY", "[::1]"}, {"all_proxy", "10.0.0.1:1"}};
  ProxyChoice c = pick_proxy(target("tcp:h:443"), fake_env);
  EXPECT_EQ(c.var, "HTTPS_PROXY");
  EXPECT_TRUE(c.parsed);
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.port, "1080");  // curl's default proxy port
  EXPECT_EQ(bracket(c.host), "[::1]");
  g_env = {{"https_proxy", "a:1"}, {"HTTPS_PROXY", "b:2"}};
  EXPECT_EQ(pick_proxy(target("https://h"), fake_env).host, "a");
  g_env = {{"ALL_PROXY", "socks5://a:1"}};
  c = pick_proxy(target("http://h"), fake_env);
  EXPECT_EQ(c.var, "ALL_PROXY");
  EXPECT_FALSE(c.parsed);  // only http:// proxies are spoken
}

TEST(ProxyTarget, NoProxyBypassesByExactNameOrStar) {
  g_env = {{"https_proxy", "p:1"}, {"NO_PROXY", "localhost, [::1] ,127.0.0.1"}};
  EXPECT_TRUE(pick_proxy(target("tcp:127.0.0.1:1"), fake_env).no_proxy_matched);
  EXPECT_TRUE(pick_proxy(target("tcp:[::1]:1"), fake_env).no_proxy_matched);
  EXPECT_TRUE(pick_proxy(target("tcp:LOCALHOST:1"), fake_env).no_proxy_matched);
  const ProxyChoice c = pick_proxy(target("tcp:127.0.0.2:1"), fake_env);
  EXPECT_FALSE(c.no_proxy_matched);
  EXPECT_EQ(c.var, "https_proxy");
  g_env = {{"https_proxy", "p:1"}, {"no_proxy", "*"}, {"NO_PROXY", "other"}};  // no_proxy first
  EXPECT_TRUE(pick_proxy(target("tcp:h:1"), fake_env).no_proxy_matched);
  g_env = {{"no_proxy", "*"}};  // no proxy to bypass: not reported
  EXPECT_FALSE(pick_proxy(target("tcp:h:1"), fake_env).no_proxy_matched);
  g_env.clear();
}

}  // namespace
}  // namespace breakout::probe
