// DNS messages as the harness's resolvers read and answer them (RFC 1035 section 4.1): one
// question, no compression in it, answers of one A record or none. Portable; peers are hostile,
// so every length is checked against the datagram.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace breakout {

inline constexpr std::size_t kDnsMaxDatagram = 512;  // RFC 1035 UDP limit; longer is truncated

struct DnsQuestion {
  std::string name;        // dotted, lower-case, no trailing dot; labels' bytes as sent (a NUL stays)
  std::uint16_t type = 0;  // 1 = A, 28 = AAAA, ...
  std::size_t end = 0;     // offset just past QTYPE/QCLASS: the question ends here
};

// The first question of a query; nullopt when malformed (short header, a label over 63 bytes or
// past the end, a name over 253 characters, a compression pointer, no QTYPE/QCLASS).
std::optional<DnsQuestion> parse_dns_question(const unsigned char* p, std::size_t n);

// The reply to `query` (its header and question, `q.end` bytes): QR and RA set, RD kept, the
// question echoed, then one A record `a` with TTL 0 when given. `rcode` 0 with no `a` is NODATA
// (the name exists, no record of that type); 3 is NXDOMAIN.
std::vector<unsigned char> dns_reply(const unsigned char* query, const DnsQuestion& q,
                                     const std::optional<std::array<unsigned char, 4>>& a, int rcode);

}  // namespace breakout
