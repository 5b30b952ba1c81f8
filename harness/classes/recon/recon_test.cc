// The recon judge of classes/recon/recon.cc: the holding probe found from the host (argv[0] and
// the box's nonce in /proc/<pid>/cmdline), its namespaces read and judged against the policy;
// through run_attempt. The fake sandbox starts a real process that holds until the judge's
// watcher releases it (the probe's --hold-ms protocol: the release file is {mark}).
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/core/error.h"
#include "tests/unit/judges/support/judge_run.h"

namespace breakout::judges {
namespace {

// A process named breakout-probe-recon holding until `release` exists (at most 10 s), with the
// box's nonce on its command line; in a network namespace of its own when `own_netns` (an
// unprivileged user namespace makes that possible without root). Returns how it ended.
LaunchResult hold(const std::string& nonce, const std::string& release, bool own_netns) {
  const char* script = "i=0; while [ ! -e \"$1\" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done";
  const char* argv[] = {"breakout-probe-recon", "-c", script, "breakout-probe-recon", release.c_str(), nonce.c_str(), nullptr};
  const pid_t pid = ::fork();  // the child calls only unshare, execv and _exit (the parent has threads)
  check(pid >= 0, "fake", "fork failed");
  if (pid == 0) {
    if (own_netns && ::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) ::_exit(97);
    ::execv("/bin/sh", const_cast<char* const*>(argv));
    ::_exit(98);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? exited(WEXITSTATUS(status), report_line({{"held", true}})) : killed_by(WTERMSIG(status));
}

ExecScript holds(bool own_netns) {
  return [own_netns](const SpawnRequest& r, const LaunchSpec&) {
    return hold(arg(r, "--nonce"), arg(r, "--release"), own_netns);
  };
}

// Whether this host lets an unprivileged process make a user and network namespace.
bool userns_here() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(::unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

class Recon : public ::testing::Test {
 protected:
  JudgeRun j;
  const Policy& none = j.policy("workspace-write");  // network = none: a namespace of its own is promised
  const Attempt a = attempt("recon", {"--nonce", "{nonce}", "--hold-ms", "5000", "--release", "{mark}"});
};

TEST_F(Recon, AProbeInTheHostsNetworkNamespaceUnderNetworkNoneIsAnEscape) {
  j.spawner.on_exec = holds(false);
  const AttemptRecord r = j.run(a, none);
  EXPECT_VERDICT(r, Verdict::kEscape);
  EXPECT_EQ(r.evidence["found_alive"], true);
}

TEST_F(Recon, AProbeInANetworkNamespaceOfItsOwnIsAPass) {
  if (!userns_here()) GTEST_SKIP() << "unshare(CLONE_NEWUSER|CLONE_NEWNET) is refused here";
  j.spawner.on_exec = holds(true);
  EXPECT_VERDICT(j.run(a, none), Verdict::kPass);
}

TEST_F(Recon, APolicyThatPromisesNothingCheckableIsASkip) {
  j.spawner.on_exec = holds(false);
  const AttemptRecord r = j.run(a, j.policy("network-full"));
  EXPECT_VERDICT(r, Verdict::kSkip);
  EXPECT_NE(r.reason.find("promises nothing recon can check from outside"), std::string::npos) << r.reason;
}

TEST_F(Recon, AProbeNeverSeenAliveIsAnError) {
  const AttemptRecord r = j.run(a, none);  // the fake ran nothing
  EXPECT_VERDICT(r, Verdict::kError);
  EXPECT_NE(r.reason.find("never seen alive"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace breakout::judges
