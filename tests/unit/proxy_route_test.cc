// network = "proxy": the expectation model, the suite's borrowed controls (controls_from), and the
// probe's SOCKS5 and absolute-URI messages (probes/common/proxy_target.h).
#include <arpa/inet.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "harness/core/error.h"
#include "harness/model/expectation.h"
#include "harness/model/scenario.h"
#include "probes/common/proxy_target.h"

using namespace breakout;

namespace {

Policy policy_of(NetworkMode mode) {
  Policy p;
  p.name = "t";
  p.network = mode;
  return p;
}

Expected proxy_exp(AttemptClass c, const std::string& target, NetworkMode mode) {
  const Target t = parse_target(target);
  return expect(c, &t, policy_of(mode), placeholder_roots()).value;
}

std::map<std::string, std::string> g_env;
std::string fake_env(const char* name) {
  const auto it = g_env.find(name);
  return it == g_env.end() ? "" : it->second;
}

}  // namespace

TEST(ProxyMode, OnlyTheAllowedDestinationThroughTheProxy) {
  using C = AttemptClass;
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:proxy-allowed", NetworkMode::kProxy), Expected::kAllowed);
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:proxy-denied", NetworkMode::kProxy), Expected::kDenied);
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:tcp4-external", NetworkMode::kProxy), Expected::kDenied);
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:tcp4-loopback", NetworkMode::kProxy), Expected::kDenied);
  // A direct connect reaches nothing, the allowed destination included.
  EXPECT_EQ(proxy_exp(C::kNetConnect, "net:proxy-allowed", NetworkMode::kProxy), Expected::kDenied);
  EXPECT_EQ(proxy_exp(C::kNetConnect, "net:tcp4-external", NetworkMode::kProxy), Expected::kDenied);
  // The workspace socket is a file in every mode.
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:unix-workspace", NetworkMode::kProxy), Expected::kAllowed);
  EXPECT_EQ(proxy_exp(C::kNetConnect, "net:unix-workspace", NetworkMode::kProxy), Expected::kAllowed);
  // Other modes: the route changes nothing; the destinations are external hosts.
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:proxy-denied", NetworkMode::kFull), Expected::kAllowed);
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:proxy-allowed", NetworkMode::kNone), Expected::kDenied);
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:proxy-allowed", NetworkMode::kLoopback), Expected::kDenied);
  EXPECT_EQ(endpoint_reach("proxy-denied"), "external");
}

TEST(ProxyMode, PolicyFileSaysProxy) {
  const Policy p = parse_policy_text(
      "name='p'\ndescription='d'\nnetwork='proxy'\ntimeout_ms=1000\n", "proxy.toml");
  EXPECT_EQ(p.network, NetworkMode::kProxy);
  EXPECT_STREQ(to_string(p.network), "proxy");
  EXPECT_THROW(parse_policy_text("name='p'\ndescription='d'\nnetwork='socks'\ntimeout_ms=1000\n", "x.toml"), Error);
}

namespace {
const char* kAttempt = R"(
[[attempt]]
id = "a.via"
title = "t"
description = "d"
reference = "r"
platforms = ["linux"]
class = "proxy-connect"
probe = "net-connect"
args = ["--target", "{target}", "--nonce", "{nonce}"]
targets = ["net:proxy-allowed", "net:proxy-denied"]

[[attempt]]
id = "a.direct"
title = "t"
description = "d"
reference = "r"
platforms = ["linux"]
class = "net-connect"
probe = "net-connect"
args = ["--target", "{target}", "--nonce", "{nonce}"]
targets = ["net:proxy-allowed", "net:proxy-denied"]
controls_from = "a.via"
)";
}  // namespace

TEST(ProxyMode, ControlsFromIsParsedAndMustNameAnotherAttempt) {
  const auto attempts = parse_attempts_text(kAttempt, "t.toml");
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].controls_from, "");
  EXPECT_EQ(attempts[1].controls_from, "a.via");
  std::string self = kAttempt;
  self.replace(self.find("controls_from = \"a.via\""), 23, "controls_from = 7");
  EXPECT_THROW(parse_attempts_text(self, "t.toml"), Error);
}

TEST(ProxyProbe, SocksMessagesFollowRfc1928And1929) {
  using namespace breakout::probe;
  const NetTarget t = *parse_net_target("tcp:198.18.7.2:40123");
  EXPECT_EQ(socks5_connect(t), std::string("\x05\x01\x00\x01\xc6\x12\x07\x02\x9c\xbb", 10));
  const NetTarget named = *parse_net_target("tcp:allowed.test:443");
  EXPECT_EQ(socks5_connect(named), std::string("\x05\x01\x00\x03\x0c", 5) + "allowed.test" + std::string("\x01\xbb", 2));
  ProxyChoice none;
  EXPECT_EQ(socks5_greeting(none), std::string("\x05\x01\x00", 3));
  ProxyChoice creds;
  creds.has_credentials = true;
  creds.user = "u";
  creds.password = "pw";
  EXPECT_EQ(socks5_greeting(creds), std::string("\x05\x02\x00\x02", 4));
  EXPECT_EQ(socks5_auth(creds), std::string("\x01\x01u\x02pw", 6));
  creds.password.assign(256, 'x');
  EXPECT_EQ(socks5_auth(creds), "");  // a length byte cannot say 256
  EXPECT_EQ(socks5_reply_code(std::string("\x05\x00\x00\x01", 4)), 0);
  EXPECT_EQ(socks5_reply_code(std::string("\x05\x02", 2)), 2);
  EXPECT_EQ(socks5_reply_code("HTTP/1.1 400"), -1);
}

TEST(ProxyProbe, SocksProxyComesFromAllProxyInCurlsOrder) {
  using namespace breakout::probe;
  const NetTarget t = *parse_net_target("tcp:198.18.7.2:40123");
  g_env = {{"ALL_PROXY", "socks5h://user:p%40ss@localhost:1080"}, {"https_proxy", "http://localhost:3128"}};
  ProxyChoice c = pick_socks_proxy(t, &fake_env);
  EXPECT_EQ(c.var, "ALL_PROXY");
  EXPECT_TRUE(c.parsed);
  EXPECT_EQ(c.host, "localhost");
  EXPECT_EQ(c.port, "1080");
  EXPECT_EQ(c.password, "p@ss");
  g_env["all_proxy"] = "http://localhost:3129";  // srt: one port speaks HTTP and SOCKS
  c = pick_socks_proxy(t, &fake_env);
  EXPECT_EQ(c.var, "all_proxy");
  EXPECT_EQ(c.port, "3129");
  g_env["all_proxy"] = "https://localhost:3129";
  EXPECT_FALSE(pick_socks_proxy(t, &fake_env).parsed);
  g_env = {{"all_proxy", "socks5://localhost:1"}, {"no_proxy", "198.18.7.2"}};
  EXPECT_TRUE(pick_socks_proxy(t, &fake_env).no_proxy_matched);
  g_env.clear();
  EXPECT_EQ(pick_socks_proxy(t, &fake_env).var, "");
}

TEST(ProxyProbe, AbsoluteUriCarriesTheNonceInAForwardedHeader) {
  using namespace breakout::probe;
  NetTarget t = *parse_net_target("tcp:198.18.7.2:40123");
  t.scheme = "http";
  ProxyChoice c;
  c.has_credentials = true;
  c.user = "a";
  c.password = "b";
  const std::string req = absolute_request(t, c, "0123456789abcdef");
  EXPECT_EQ(req.rfind("GET http://198.18.7.2:40123/breakout HTTP/1.1\r\n", 0), 0u) << req;
  EXPECT_NE(req.find("\r\nHost: 198.18.7.2:40123\r\n"), std::string::npos);
  EXPECT_NE(req.find("\r\nProxy-Authorization: Basic YTpi\r\n"), std::string::npos);
  EXPECT_NE(req.find("\r\nX-Breakout: BREAKOUT-NONCE 0123456789abcdef\r\n"), std::string::npos);
  EXPECT_EQ(req.substr(req.size() - 4), "\r\n\r\n");
}

// --spell: each IPv4 spelling must be one inet_aton reads as the same address,
// or a proxy that let it through would connect elsewhere and the attempt would test nothing.
TEST(ProxyProbe, IpSpellingsNameTheSameAddress) {
  using namespace breakout::probe;
  const NetTarget t = *parse_net_target("tcp:198.18.7.2:40123");
  for (const char* form : {"decimal", "octal", "hex"}) {
    const auto a = spell_destination(t, form, "");
    ASSERT_TRUE(a) << form;
    const std::string host = a->socks_host;
    EXPECT_NE(host, "198.18.7.2") << form;
    in_addr got{}, want{};
    ASSERT_EQ(::inet_aton(host.c_str(), &got), 1) << form << " " << host;
    ::inet_aton("198.18.7.2", &want);
    EXPECT_EQ(got.s_addr, want.s_addr) << form << " " << host;
    EXPECT_EQ(a->authority, host + ":40123");
    EXPECT_EQ(a->host_header, a->authority);
  }
  EXPECT_EQ(spell_destination(t, "decimal", "")->socks_host, "3323070210");
  EXPECT_EQ(spell_destination(t, "octal", "")->socks_host, "0306.022.07.02");
  EXPECT_EQ(spell_destination(t, "hex", "")->socks_host, "0xC6120702");
  const auto mapped = spell_destination(t, "mapped6", "");
  EXPECT_EQ(mapped->authority, "[::ffff:198.18.7.2]:40123");
  // SOCKS5 carries it as an IPv6 address (ATYP 4), not as a name.
  EXPECT_EQ(socks5_connect(mapped->socks_host, "40123"),
            std::string("\x05\x01\x00\x04", 4) + std::string(10, '\0') + "\xff\xff\xc6\x12\x07\x02\x9c\xbb");
  EXPECT_FALSE(spell_destination(*parse_net_target("tcp:allowed.test:443"), "hex", ""));
  EXPECT_FALSE(spell_destination(t, "rot13", ""));
}

TEST(ProxyProbe, DecoySpellingsSplitTheUriFromTheHostHeader) {
  using namespace breakout::probe;
  NetTarget t = *parse_net_target("tcp:198.18.7.2:40123");
  const auto host = spell_destination(t, "host-header", "198.18.7.2:40100");
  ASSERT_TRUE(host);
  ProxyChoice c;
  const std::string req = absolute_request(*host, c, "N");
  EXPECT_EQ(req.rfind("GET http://198.18.7.2:40100/breakout HTTP/1.1\r\nHost: 198.18.7.2:40123\r\n", 0), 0u) << req;
  const auto uri = spell_destination(t, "uri-host", "198.18.7.2:40100");
  EXPECT_EQ(uri->authority, "198.18.7.2:40123");
  EXPECT_EQ(uri->host_header, "198.18.7.2:40100");
  EXPECT_EQ(spell_destination(t, "userinfo", "198.18.7.2:40100")->authority, "198.18.7.2:40100@198.18.7.2:40123");
  EXPECT_FALSE(spell_destination(t, "host-header", ""));  // no decoy: nothing to split
  EXPECT_TRUE(spelling_needs_absolute("userinfo"));
  EXPECT_FALSE(spelling_needs_absolute("hex"));
}

TEST(ProxyProbe, NameSpellingsKeepTheNameForAResolver) {
  using namespace breakout::probe;
  NetTarget t = *parse_net_target("tcp:198.18.7.2:40123");
  t.host = "denied.allowed.breakout.test";  // as --name sets it
  EXPECT_EQ(spell_destination(t, "trailing-dot", "")->authority, "denied.allowed.breakout.test.:40123");
  EXPECT_EQ(spell_destination(t, "mixed-case", "")->socks_host, "DeNiEd.AlLoWeD.bReAkOuT.tEsT");
  const auto nul = spell_destination(t, "nul-suffix", "allowed.breakout.test");
  ASSERT_TRUE(nul);
  EXPECT_EQ(nul->socks_host, std::string("denied.allowed.breakout.test\0.allowed.breakout.test", 51));
  EXPECT_EQ(std::string(nul->socks_host.c_str()), "denied.allowed.breakout.test");  // what getaddrinfo reads
  // SOCKS5 carries the whole name, NUL included, as a length-prefixed domain (ATYP 3).
  const std::string socks = socks5_connect(nul->socks_host, "40123");
  EXPECT_EQ(socks.substr(3, 2), std::string("\x03\x33", 2));
  EXPECT_EQ(socks.substr(5, 51), nul->socks_host);
  EXPECT_FALSE(spell_destination(t, "nul-suffix", ""));  // no allowed domain to hide behind
  EXPECT_FALSE(spell_destination(*parse_net_target("tcp:198.18.7.2:1"), "trailing-dot", ""));  // no name
  EXPECT_TRUE(spelling_is_name_form("mixed-case"));
  EXPECT_FALSE(spelling_is_name_form("hex"));
}

TEST(ProxyMode, AnAllowlistedNameNeverReachesTheHostsLoopback) {
  using C = AttemptClass;
  const Target t = parse_target("net:tcp4-loopback");
  const Expectation e = expect(C::kProxyConnect, &t, policy_of(NetworkMode::kProxy), placeholder_roots());
  EXPECT_EQ(e.value, Expected::kDenied);
  EXPECT_NE(e.why.find("loopback"), std::string::npos) << e.why;
  EXPECT_EQ(proxy_exp(C::kProxyConnect, "net:name-denied", NetworkMode::kProxy), Expected::kDenied);
  EXPECT_EQ(endpoint_reach("name-denied"), "external");
}
