// DNS question parsing and replies (RFC 1035 4.1.1-4.1.3).
#include "harness/host/dns_wire.h"

#include <cctype>

namespace breakout {

std::optional<DnsQuestion> parse_dns_question(const unsigned char* p, std::size_t n) {
  if (n < 12) return std::nullopt;
  DnsQuestion q;
  std::size_t at = 12;
  while (at < n) {
    const unsigned len = p[at++];
    if (len == 0) {
      if (at + 4 > n) return std::nullopt;
      q.type = static_cast<std::uint16_t>((p[at] << 8) | p[at + 1]);
      q.end = at + 4;
      return q;
    }
    // 0xC0 and above are compression pointers, 0x40..0xBF reserved: neither belongs in a question.
    if (len > 63 || at + len > n || q.name.size() + len + 1 > 253) return std::nullopt;
    if (!q.name.empty()) q.name += '.';
    for (unsigned i = 0; i < len; ++i) q.name += static_cast<char>(std::tolower(p[at + i]));
    at += len;
  }
  return std::nullopt;
}

std::vector<unsigned char> dns_reply(const unsigned char* query, const DnsQuestion& q,
                                     const std::optional<std::array<unsigned char, 4>>& a, int rcode) {
  std::vector<unsigned char> out(query, query + q.end);
  out[2] = static_cast<unsigned char>(0x80 | (query[2] & 0x01));  // QR, opcode 0, RD as asked
  out[3] = static_cast<unsigned char>(0x80 | (rcode & 0x0f));     // RA, RCODE
  out[4] = 0, out[5] = 1;                                         // QDCOUNT 1
  out[6] = 0, out[7] = a ? 1 : 0;                                 // ANCOUNT
  out[8] = out[9] = out[10] = out[11] = 0;                        // NSCOUNT, ARCOUNT
  if (a) {
    // NAME: a pointer to the question's name at offset 12; TYPE A, CLASS IN, TTL 0, RDLENGTH 4.
    const unsigned char rr[] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4};
    out.insert(out.end(), rr, rr + sizeof rr);
    out.insert(out.end(), a->begin(), a->end());
  }
  return out;
}

}  // namespace breakout
