// A hostile or broken driver cannot hang or crash the harness: each misbehaviour is a clear error within its bound.
#include <gtest/gtest.h>

#include <chrono>

#include "harness/driver/connection.h"
#include "tests/support/busy_cpus.h"

using namespace breakout;
using namespace breakout::driver;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// A driver written as a shell script: it reads one request line per `read`.
std::unique_ptr<DriverConnection> sh_driver(const std::string& script, LineChannel::Limits limits = {}) {
  DriverConnection::Options o;
  o.argv = {"/bin/sh", "-c", script};
  o.env = {"PATH=/usr/bin:/bin"};
  o.limits = limits;
  return std::make_unique<DriverConnection>(o, nullptr);
}

Response hello(DriverConnection& c, std::chrono::milliseconds timeout = 3s) {
  return c.call("hello", [](long long id) { return hello_request(id); }, timeout);
}

std::string failure_of(DriverConnection& c, std::chrono::milliseconds timeout, double* seconds) {
  const auto t0 = Clock::now();
  try {
    hello(c, timeout);
  } catch (const ProtocolError& e) {
    *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return e.what();
  }
  return "";
}

}  // namespace

TEST(DriverConnection, AnswersAreMatchedById) {
  auto c = sh_driver(R"(read l; echo '{"id": 1, "ok": true, "protocol": 1}'; read l; echo '{"id": 2, "ok": false, "error": {"code": "unsupported", "message": "no"}}'; read l; exit 0)");
  EXPECT_TRUE(hello(*c).ok);
  const Response second = hello(*c);
  EXPECT_FALSE(second.ok);
  EXPECT_EQ(second.error_code, "unsupported");
  c->close(1s);
  EXPECT_EQ(c->evidence()["driver_ended"], "exited with status 0");
}

TEST(DriverConnection, InvalidJsonFailsAtOnce) {
  auto c = sh_driver(R"(read l; echo '{"id": 1, "ok": tru'; sleep 30)");
  double s = 0;
  const std::string why = failure_of(*c, 10s, &s);
  EXPECT_NE(why.find("broke the protocol"), std::string::npos) << why;
  EXPECT_LT(s, 2.0);
}

TEST(DriverConnection, HugeLineIsCutAtTheBound) {
  LineChannel::Limits small;
  small.max_line = 1u << 20;
  auto c = sh_driver(R"(read l; head -c 80000000 /dev/zero | tr '\0' a; sleep 30)", small);
  double s = 0;
  const std::string why = failure_of(*c, 20s, &s);
  EXPECT_NE(why.find("over the bound"), std::string::npos) << why;
  EXPECT_LT(s, 5.0);
}

TEST(DriverConnection, NoAnswerMeetsTheDeadlineAndPoisonsTheConnection) {
  auto c = sh_driver("sleep 30");
  double s = 0;
  const std::string why = failure_of(*c, 300ms, &s);
  EXPECT_NE(why.find("did not answer hello"), std::string::npos) << why;
  EXPECT_LT(s, 1.5);
  const std::string next = failure_of(*c, 10s, &s);  // no second wait on a driver that missed one
  EXPECT_FALSE(next.empty());
  EXPECT_LT(s, 0.5);
  const auto t0 = Clock::now();
  c->close(200ms);  // ignores stdin EOF: killed after the grace
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 3.0);
}

TEST(DriverConnection, WrongIdIsNotTakenAsTheAnswer) {
  auto c = sh_driver(R"(read l; echo '{"id": 1001, "ok": true}'; sleep 30)");
  double s = 0;
  const std::string why = failure_of(*c, 500ms, &s);
  EXPECT_NE(why.find("did not answer"), std::string::npos) << why;
  c->close(100ms);
  EXPECT_EQ(c->evidence()["protocol_notes"][0], "answer for unknown id 1001 ignored");
}

TEST(DriverConnection, RepeatedAnswerIsIgnoredAndNoted) {
  auto c = sh_driver(R"(read l; echo '{"id": 1, "ok": true}'; echo '{"id": 1, "ok": false}'; read l; echo '{"id": 2, "ok": true}'; read l; exit 0)");
  EXPECT_TRUE(hello(*c).ok);
  EXPECT_TRUE(hello(*c).ok);
  c->close(1s);
  EXPECT_EQ(c->evidence()["protocol_notes"][0], "repeated answer for id 1 ignored");
}

TEST(DriverConnection, EarlyExitIsReportedWithItsStatus) {
  auto c = sh_driver("exit 3");
  double s = 0;
  const std::string why = failure_of(*c, 10s, &s);
  EXPECT_NE(why.find("exited with status 3"), std::string::npos) << why;
  EXPECT_LT(s, 2.0);
}

TEST(DriverConnection, StderrFloodIsDrainedAndBounded) {
  auto c = sh_driver(R"(head -c 50000000 /dev/zero | tr '\0' e >&2; read l; echo '{"id": 1, "ok": true}'; read l)");
  EXPECT_TRUE(hello(*c, 20s).ok);  // the flood never blocks the driver: we drain stderr all along
  c->close(1s);
  const auto e = c->evidence();
  EXPECT_EQ(e["stderr_bytes"], 50000000u);
  EXPECT_LE(e["stderr_tail"].get<std::string>().size(), 4096u + 64);  // + printable_excerpt's "more bytes" note
}

TEST(DriverConnection, EvidenceCountsTheStderrWrittenBeforeTheAnswer) {
  // The driver stays alive, so nothing waits for stderr's end: only catching up with the pipe
  // makes the count exact. The flood's last 60000 bytes (they fit in the pipe) and the answer
  // leave the shell back to back (builtins). Spinning threads stand for a loaded CI runner, where
  // the drain thread is not scheduled at once: without the catch-up some rounds then miss bytes.
  const test_support::BusyCpus load;
  for (int round = 0; round < 20; ++round) {
    auto c = sh_driver(
        R"(read l; head -c 3000000 /dev/zero >&2; printf '%60000s' x >&2; echo '{"id": 1, "ok": true}'; read l)");
    ASSERT_TRUE(hello(*c, 20s).ok);
    EXPECT_EQ(c->evidence()["stderr_bytes"], 3060000u) << "round " << round;
  }
}
