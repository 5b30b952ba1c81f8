// The net-inbound judge of classes/net/inbound.cc: the harness's own connect, from the host,
// into the listener the probe says (in its mark) it opened, and the nonce coming back over it;
// through run_attempt. The fake sandbox listens for real and waits (bounded) for the harness.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "harness/host/net_listeners.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

// The probe net-listen: listens (TCP on 127.0.0.1, or the unix path `unix_path`), writes the
// address to its mark, waits up to 5 s for one connection and sends the nonce line on it.
LaunchResult listen_once(const SpawnRequest& r, const std::string& unix_path) {
  int l = -1;
  std::string address;
  if (unix_path.empty()) {
    l = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    check(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
              ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len) == 0, "fake", "bind 127.0.0.1");
    address = "tcp:127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  } else {
    l = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, unix_path.c_str(), sizeof a.sun_path - 1);
    check(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0, "fake", "bind " + unix_path);
    address = "unix:" + unix_path;
  }
  check(::listen(l, 1) == 0, "fake", "listen");
  write_text(arg(r, "--mark"), address + "\n");
  pollfd p{l, POLLIN, 0};
  bool served = false;
  if (::poll(&p, 1, 5000) == 1) {  // the probe's own bounded wait for the harness
    const int c = ::accept4(l, nullptr, nullptr, SOCK_CLOEXEC);
    const std::string line = std::string(kNonceMarker) + arg(r, "--nonce") + "\n";
    served = c >= 0 && ::send(c, line.data(), line.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(line.size());
    if (c >= 0) ::close(c);
  }
  ::close(l);
  return exited(served ? 0 : 1, report_line({{"served", served}}));
}

ExecScript listens_on(bool unix_socket) {
  return [unix_socket](const SpawnRequest& r, const LaunchSpec&) {
    const std::string target = arg(r, "--target");  // "unix:<harness socket>" for net:unix-workspace
    return listen_once(r, unix_socket ? target.substr(5) + ".in" : "");
  };
}

class Inbound : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& none = j.policy("workspace-write");  // network = none
  const Attempt a = attempt("net-inbound", {"--target", "{target}", "--nonce", "{nonce}", "--mark", "{mark}"});
};

TEST_F(Inbound, AListenerTheHostReachedOnLoopbackIsAnEscape) {
  j.spawner.on_exec = listens_on(false);
  const AttemptRecord r = j.run(a, none, "net:tcp4-loopback");
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["nonce_received"], true);
}

TEST_F(Inbound, NoListenerIsAPassAndTheWorkspaceSocketIsReached) {
  j.spawner.on_exec = [](const SpawnRequest&, const LaunchSpec&) { return exited(1, report_line({{"error", "EPERM"}})); };
  EXPECT_VERDICT(j.run(a, none, "net:tcp4-loopback"), Verdict::kPass);
  j.spawner.on_exec = listens_on(true);
  EXPECT_VERDICT(j.run(a, none, "net:unix-workspace"), Verdict::kPass);
}

TEST_F(Inbound, AMarkNamingAnAddressTheHarnessMustNotDialIsNeverDialled) {
  // No skip path in this judge. The mark is the sandbox's word: a unix path other than the one
  // expected is not dialled, so the control cannot be reached: an overblock.
  j.spawner.on_exec = [](const SpawnRequest& r, const LaunchSpec&) {
    write_text(arg(r, "--mark"), "unix:/run/some-host-service.sock\n");
    return exited(1);
  };
  const AttemptRecord r = j.run(a, none, "net:unix-workspace");
  EXPECT_VERDICT(r, Verdict::kOverblock);
  EXPECT_EQ(r.evidence["dialled"], false);
}

}  // namespace
}  // namespace breakout::judges
