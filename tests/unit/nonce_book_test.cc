// NonceBook: what the loopback listeners accept as a nonce from hostile bytes, and how much they remember.
#include "harness/host/nonce_book.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace breakout {
namespace {

using std::chrono::milliseconds;

TEST(FindNonces, AcceptsLowerHexOfEightToSixtyFourDigits) {
  EXPECT_EQ(find_nonces("BREAKOUT-NONCE 0123abcd\n", false), std::vector<std::string>{"0123abcd"});
  EXPECT_EQ(find_nonces("x BREAKOUT-NONCE " + std::string(64, 'f') + " y", false),
            std::vector<std::string>{std::string(64, 'f')});
  EXPECT_TRUE(find_nonces("BREAKOUT-NONCE 0123abc\n", true).empty()) << "7 digits";
  EXPECT_TRUE(find_nonces("BREAKOUT-NONCE " + std::string(65, 'a') + "\n", true).empty()) << "65 digits";
  EXPECT_TRUE(find_nonces("BREAKOUT-NONCE 0123ABCD\n", true).empty()) << "upper case is not a nonce we issue";
  EXPECT_TRUE(find_nonces("breakout-nonce 0123abcd\n", true).empty());
}

TEST(FindNonces, AHexRunAtTheEndCountsOnlyWhenTheConnectionIsDone) {
  // A TCP read may split "…abcd|ef01\n": the first half must not be recorded as a short nonce.
  EXPECT_TRUE(find_nonces("BREAKOUT-NONCE 0123abcd", false).empty());
  EXPECT_EQ(find_nonces("BREAKOUT-NONCE 0123abcd", true), std::vector<std::string>{"0123abcd"});
}

TEST(FindNonces, FindsEveryMarker) {
  EXPECT_EQ(find_nonces("BREAKOUT-NONCE aaaaaaaa BREAKOUT-NONCE bbbbbbbb\n", false),
            (std::vector<std::string>{"aaaaaaaa", "bbbbbbbb"}));
}

TEST(NonceBook, RemembersEndpointsPerNonce) {
  NonceBook book;
  book.record("BREAKOUT-NONCE 0123abcd\n", "tcp4-loopback", true);
  book.record("BREAKOUT-NONCE 0123abcd\n", "udp6-loopback", true);
  EXPECT_EQ(book.received("0123abcd"), (std::set<std::string>{"tcp4-loopback", "udp6-loopback"}));
  EXPECT_TRUE(book.received("ffffffff").empty());
}

TEST(NonceBook, AFloodEvictsTheOldestNeverTheNewest) {
  NonceBook book;
  book.record("BREAKOUT-NONCE 00000000\n", "tcp4-loopback", true);
  char buf[32];
  for (std::size_t i = 1; i <= NonceBook::kMaxNonces; ++i) {
    std::snprintf(buf, sizeof buf, "BREAKOUT-NONCE %08zx\n", i);
    book.record(buf, "udp4-loopback", true);
  }
  EXPECT_TRUE(book.received("00000000").empty()) << "the oldest must go once the bound is passed";
  std::snprintf(buf, sizeof buf, "%08zx", NonceBook::kMaxNonces);
  EXPECT_EQ(book.received(buf), std::set<std::string>{"udp4-loopback"});
  EXPECT_EQ(book.received("00000001"), std::set<std::string>{"udp4-loopback"});
}

TEST(NonceBook, WaitForWakesOnTheRightEndpointOnly) {
  NonceBook book;
  const std::string tcp = "tcp4-loopback", udp = "udp4-loopback";
  std::thread late([&] {
    std::this_thread::sleep_for(milliseconds(50));
    book.record("BREAKOUT-NONCE 0123abcd\n", udp, true);
  });
  EXPECT_TRUE(book.wait_for("0123abcd", &udp, milliseconds(5000)));
  late.join();
  EXPECT_FALSE(book.wait_for("0123abcd", &tcp, milliseconds(20))) << "arrived on another endpoint";
  EXPECT_TRUE(book.wait_for("0123abcd", nullptr, milliseconds(0)));
}

}  // namespace
}  // namespace breakout
