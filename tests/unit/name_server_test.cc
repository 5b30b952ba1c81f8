// The run's zone (harness/host/name_server.h) and the DNS messages it reads and writes (dns_wire.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/host/dns_wire.h"
#include "harness/host/name_server.h"

namespace breakout {
namespace {

std::vector<unsigned char> query(const std::string& name, std::uint16_t type) {
  std::vector<unsigned char> q = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = std::min(name.find('.', start), name.size());
    q.push_back(static_cast<unsigned char>(dot - start));
    q.insert(q.end(), name.begin() + static_cast<long>(start), name.begin() + static_cast<long>(dot));
    start = dot + 1;
  }
  q.push_back(0);
  q.insert(q.end(), {static_cast<unsigned char>(type >> 8), static_cast<unsigned char>(type & 0xff), 0, 1});
  return q;
}

const ZoneAddresses kZone{{198, 18, 7, 2}, {198, 19, 7, 2}};

TEST(NameServer, TheZoneSendsAllowedAndDeniedNamesToTheirOwnAddresses) {
  using K = ZoneAnswer::Kind;
  auto a = [](const std::string& n) { return zone_answer(n, 1, kZone); };
  EXPECT_EQ(a("allowed.breakout.test").a, kZone.external);
  EXPECT_EQ(a("0123abcd.allowed.breakout.test").a, kZone.external);
  EXPECT_EQ(a("denied.breakout.test").a, kZone.second);
  EXPECT_EQ(a("0123abcd.denied.breakout.test").a, kZone.second);
  EXPECT_EQ(a("denied.allowed.breakout.test").a, kZone.second);  // denied inside the wildcard
  EXPECT_EQ(a("loop.allowed.breakout.test").a, (std::array<unsigned char, 4>{127, 0, 0, 1}));
  EXPECT_EQ(a("xallowed.breakout.test").kind, K::kNxDomain);  // a label boundary, not a suffix
  EXPECT_EQ(a("example.com").kind, K::kNxDomain);
  EXPECT_EQ(zone_answer("allowed.breakout.test", 28, kZone).kind, K::kNoData);  // AAAA: none
  EXPECT_EQ(endpoint_host_name("proxy-allowed"), "allowed.breakout.test");
  EXPECT_EQ(endpoint_host_name("name-denied"), "denied.breakout.test");
  EXPECT_EQ(endpoint_host_name("tcp4-loopback"), "");
}

TEST(NameServer, QuestionsAreReadAndAnswered) {
  const auto q = query("Denied.Breakout.Test", 1);
  const auto parsed = parse_dns_question(q.data(), q.size());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->name, "denied.breakout.test");  // lower-cased: names compare so (RFC 4343)
  EXPECT_EQ(parsed->type, 1);
  EXPECT_EQ(parsed->end, q.size());
  const auto reply = dns_reply(q.data(), *parsed, std::array<unsigned char, 4>{198, 19, 7, 2}, 0);
  ASSERT_EQ(reply.size(), q.size() + 16);
  EXPECT_EQ(reply[0], 0x12);               // the query's id
  EXPECT_EQ(reply[2], 0x81);               // QR, RD kept
  EXPECT_EQ(reply[3] & 0x0f, 0);           // NOERROR
  EXPECT_EQ(reply[7], 1);                  // one answer
  EXPECT_EQ(reply[q.size()], 0xc0);        // its name points at the question
  EXPECT_EQ(reply.back(), 2);
  const auto nx = dns_reply(q.data(), *parsed, std::nullopt, 3);
  EXPECT_EQ(nx[3] & 0x0f, 3);
  EXPECT_EQ(nx[7], 0);
}

TEST(NameServer, HostileQuestionsAreRefused) {
  auto q = query("allowed.breakout.test", 1);
  EXPECT_FALSE(parse_dns_question(q.data(), 11));              // short header
  EXPECT_FALSE(parse_dns_question(q.data(), q.size() - 2));    // no QCLASS
  q[12] = 0xc0;                                                 // a compression pointer
  EXPECT_FALSE(parse_dns_question(q.data(), q.size()));
  q[12] = 200;                                                  // a label past the end
  EXPECT_FALSE(parse_dns_question(q.data(), q.size()));
  std::string long_name;
  for (int i = 0; i < 5; ++i) long_name += std::string(60, 'a') + ".";
  const auto big = query(long_name + "test", 1);                // over 253 characters
  EXPECT_FALSE(parse_dns_question(big.data(), big.size()));
}

}  // namespace
}  // namespace breakout
