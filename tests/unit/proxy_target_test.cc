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

// srt's value (sandbox-utils.js generateProxyEnvVars): the user is base64 put through
// encodeURIComponent, the password a token; curl decodes both before building the header.
TEST(ProxyTarget, CredentialsArePercentDecodedAsCurlDoes) {
  g_env = {{"https_proxy", "http://c3J0%2BdXNlcg%3D%3D:t0k%3An%40x@localhost:3128/"}};
  ProxyChoice c = pick_proxy(target("tcp:198.51.100.7:443"), fake_env);
  ASSERT_TRUE(c.parsed);
  EXPECT_TRUE(c.has_credentials);
  EXPECT_EQ(c.user, "c3J0+dXNlcg==");
  EXPECT_EQ(c.password, "t0k:n@x");  // split at the first ':' of the userinfo, then decoded
  EXPECT_EQ(c.host, "localhost");
  EXPECT_EQ(c.port, "3128");
  g_env = {{"https_proxy", "http://us:er:pw%zz%4@h:1"}};  // a '%' without two hex digits stays
  c = pick_proxy(target("tcp:h2:1"), fake_env);
  EXPECT_EQ(c.user, "us");
  EXPECT_EQ(c.password, "er:pw%zz%4");
  g_env = {{"https_proxy", "only-user@h:1"}};  // no password: curl sends "user:"
  c = pick_proxy(target("tcp:h2:1"), fake_env);
  EXPECT_TRUE(c.has_credentials);
  EXPECT_EQ(c.user, "only-user");
  EXPECT_EQ(c.password, "");
  g_env = {{"https_proxy", "h:1"}};
  EXPECT_FALSE(pick_proxy(target("tcp:h2:1"), fake_env).has_credentials);
  g_env = {{"https_proxy", "http://u%00x:p@h:1"}};  // curl refuses a NUL in the credentials
  c = pick_proxy(target("tcp:h2:1"), fake_env);
  EXPECT_EQ(c.var, "https_proxy");
  EXPECT_FALSE(c.parsed);
  EXPECT_FALSE(c.has_credentials);
  g_env.clear();
}

TEST(ProxyTarget, ConnectCarriesBasicCredentialsOnlyWhenTheUrlHasThem) {
  g_env = {{"https_proxy", "http://Aladdin:open%20sesame@[::1]:8080"}};
  const NetTarget t = target("tcp:[fd00::2]:443");
  ProxyChoice c = pick_proxy(t, fake_env);
  // RFC 7617's example: "Aladdin:open sesame" is QWxhZGRpbjpvcGVuIHNlc2FtZQ==.
  EXPECT_EQ(connect_request(t, c, "N1"),
            "CONNECT [fd00::2]:443 HTTP/1.1\r\nHost: [fd00::2]:443\r\n"
            "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\nX-Breakout-Nonce: N1\r\n\r\n");
  g_env = {{"https_proxy", "[::1]:8080"}};
  c = pick_proxy(t, fake_env);
  EXPECT_EQ(connect_request(t, c, "N1"), "CONNECT [fd00::2]:443 HTTP/1.1\r\nHost: [fd00::2]:443\r\nX-Breakout-Nonce: N1\r\n\r\n");
  g_env.clear();
}

TEST(ProxyTarget, Base64PadsAsRfc4648) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(ProxyTarget, MaskedCredentialsNeverShowThePasswordOrTheWholeUser) {
  g_env = {{"https_proxy", "http://c3J0dXNlcg:s3cr3t-t0ken@h:1"}};
  ProxyChoice c = pick_proxy(target("tcp:h2:1"), fake_env);
  const std::string m = masked_credentials(c);
  EXPECT_EQ(m, "user c3... (10 bytes), password (12 bytes)");
  EXPECT_EQ(m.find("s3cr3t"), std::string::npos);
  g_env = {{"https_proxy", "http://abc:pw@h:1"}};  // a short user is not shown at all
  EXPECT_EQ(masked_credentials(pick_proxy(target("tcp:h2:1"), fake_env)), "user ... (3 bytes), password (2 bytes)");
  g_env = {{"https_proxy", "h:1"}};
  EXPECT_EQ(masked_credentials(pick_proxy(target("tcp:h2:1"), fake_env)), "");
  g_env.clear();
}

}  // namespace
}  // namespace breakout::probe
