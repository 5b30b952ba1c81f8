// The Windows network oracle and probe under Wine (or Windows): the host's own address listener, direct vs proxy-honouring connects.
//
// The probe is the cross-built breakout-probe-net-connect beside this executable,
// started through the launcher with an explicit environment (only what each test
// names), aimed at NonceListeners the test owns. Which listener received the nonce
// decides, as in a run: through a proxy the nonce reaches the proxy's listener, not the
// target's (the proxy here is a second nonce listener; it never forwards).
#include <gtest/gtest.h>
#include <windows.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "harness/core/nonce.h"
#include "harness/host/net_listeners.h"
#include "harness/platform/os.h"
#include "harness/platform/process.h"

using namespace breakout;
using namespace std::chrono_literals;

namespace {

std::string probe() { return (self_exe_dir() / "breakout-probe-net-connect.exe").string(); }

// The listeners count lower-case hex nonces only (host/nonce_book.cc), as a run's are.
std::string fresh_nonce() { return random_hex(16); }

// Runs the probe with SystemRoot (DLL loading) plus `extra`; returns its report line (stdout).
std::string run_probe(const std::vector<std::string>& args, const std::vector<std::string>& extra = {}) {
  LaunchSpec s;
  s.argv = {probe()};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  for (const char* name : {"SystemRoot", "windir"})
    if (const char* v = std::getenv(name)) s.env.push_back(std::string(name) + "=" + v);
  s.env.insert(s.env.end(), extra.begin(), extra.end());
  s.timeout = 30s;
  const LaunchResult r = run_process(s, nullptr, nullptr);
  EXPECT_TRUE(r.started) << r.start_error;
  EXPECT_FALSE(r.timed_out);
  return r.out;
}

// "tcp:127.0.0.1:40123" -> "127.0.0.1:40123"
std::string host_port(const Endpoint& e) { return e.spec.substr(4); }

bool has(const std::string& report, const std::string& field) { return report.find(field) != std::string::npos; }

}  // namespace

// GetAdaptersAddresses finds the host's own address (under Wine: the Linux host's eth0),
// the listener is bound to it, is not loopback, and receives a direct connect there.
TEST(WinNetReach, HostAddressListenerReceivesADirectConnect) {
  NonceListeners l(nullptr, "");
  const auto host = l.endpoint("tcp4-host");
  if (!host) GTEST_SKIP() << "no host address: " << l.skip_reason("tcp4-host");
  EXPECT_FALSE(host->loopback);
  EXPECT_EQ(host->spec.find("tcp:127."), std::string::npos) << host->spec;
  const std::string nonce = fresh_nonce();
  const std::string report = run_probe({"--target", host->spec, "--nonce", nonce});
  EXPECT_TRUE(has(report, "\"ok\":true")) << report;
  EXPECT_TRUE(l.wait_for(nonce, "tcp4-host", 5s)) << report;
  EXPECT_EQ(l.received(nonce), std::set<std::string>{"tcp4-host"});
  // The v6 one when the host has a global IPv6 address; its reason otherwise.
  if (const auto v6 = l.endpoint("tcp6-host")) {
    EXPECT_FALSE(v6->loopback);
    EXPECT_EQ(v6->spec.find("[::1]"), std::string::npos) << v6->spec;
  } else {
    EXPECT_FALSE(l.skip_reason("tcp6-host").empty());
  }
}

// HTTPS_PROXY names another listener: the nonce arrives there (the CONNECT request and the
// tunnelled line), never at the target. Without --via-proxy the same environment is ignored.
TEST(WinNetReach, ProxyHonouringConnectGoesToTheProxyNotTheTarget) {
  NonceListeners target(nullptr, ""), proxy(nullptr, "");
  const auto t = target.endpoint("tcp4-loopback");
  const auto p = proxy.endpoint("tcp4-loopback");
  ASSERT_TRUE(t && p);
  const std::vector<std::string> env = {"HTTPS_PROXY=http://user:pw@" + host_port(*p)};
  const std::string nonce = fresh_nonce();
  const std::string report = run_probe({"--target", t->spec, "--nonce", nonce, "--via-proxy"}, env);
  EXPECT_TRUE(has(report, "\"via\":\"proxy\"")) << report;
  EXPECT_TRUE(has(report, "\"proxy\":\"" + host_port(*p) + "\"")) << report;
  EXPECT_FALSE(has(report, "user:pw")) << "credentials must never be reported: " << report;
  EXPECT_TRUE(proxy.wait_for(nonce, "tcp4-loopback", 5s)) << report;
  EXPECT_FALSE(target.wait_for(nonce, "tcp4-loopback", 300ms)) << report;

  const std::string direct_nonce = fresh_nonce();
  const std::string direct = run_probe({"--target", t->spec, "--nonce", direct_nonce}, env);
  EXPECT_TRUE(has(direct, "\"via\":\"direct\"")) << direct;
  EXPECT_TRUE(target.wait_for(direct_nonce, "tcp4-loopback", 5s)) << direct;
  EXPECT_FALSE(proxy.wait_for(direct_nonce, "tcp4-loopback", 300ms)) << direct;
}

// no_proxy naming the target's address bypasses the proxy (curl's rule): the target gets it.
TEST(WinNetReach, NoProxyBypassesTheProxy) {
  NonceListeners target(nullptr, ""), proxy(nullptr, "");
  const auto t = target.endpoint("tcp4-loopback");
  const auto p = proxy.endpoint("tcp4-loopback");
  ASSERT_TRUE(t && p);
  const std::string nonce = fresh_nonce();
  const std::string report = run_probe({"--target", t->spec, "--nonce", nonce, "--via-proxy"},
                                       {"HTTPS_PROXY=http://" + host_port(*p), "NO_PROXY=localhost, 127.0.0.1"});
  EXPECT_TRUE(has(report, "\"no_proxy_matched\":true")) << report;
  EXPECT_TRUE(target.wait_for(nonce, "tcp4-loopback", 5s)) << report;
  EXPECT_FALSE(proxy.wait_for(nonce, "tcp4-loopback", 300ms)) << report;
}

// An http:// target takes http_proxy; on Windows names are case-insensitive, so the
// upper-case HTTP_PROXY a policy pins is that variable (curl on Windows reads it the same way).
TEST(WinNetReach, HttpTargetHonoursHttpProxyInEitherCase) {
  NonceListeners target(nullptr, ""), proxy(nullptr, "");
  const auto t = target.endpoint("tcp4-loopback");
  const auto p = proxy.endpoint("tcp4-loopback");
  ASSERT_TRUE(t && p);
  const std::string nonce = fresh_nonce();
  const std::string report = run_probe({"--target", "http://" + host_port(*t) + "/x", "--nonce", nonce, "--via-proxy"},
                                       {"HTTP_PROXY=" + host_port(*p)});
  EXPECT_TRUE(has(report, "\"proxy_var\":\"http_proxy\"")) << report;
  EXPECT_TRUE(proxy.wait_for(nonce, "tcp4-loopback", 5s)) << report;
  EXPECT_FALSE(target.wait_for(nonce, "tcp4-loopback", 300ms)) << report;
  // A dead proxy (the policies' poisoning, 127.0.0.1:9): connect fails, nothing arrives anywhere.
  const std::string dead_nonce = fresh_nonce();
  const std::string dead = run_probe({"--target", "http://" + host_port(*t), "--nonce", dead_nonce, "--via-proxy"},
                                     {"HTTP_PROXY=http://127.0.0.1:9"});
  EXPECT_TRUE(has(dead, "\"ok\":false")) << dead;
  EXPECT_FALSE(target.wait_for(dead_nonce, "tcp4-loopback", 300ms)) << dead;
}
