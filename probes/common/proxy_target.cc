// net-connect's target syntax and proxy choice (curl's rules; see proxy_target.h).
#include "probes/common/proxy_target.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <vector>

namespace breakout::probe {

namespace {

// ASCII case folding only, as strcasecmp in the C locale (the probes never call setlocale).
bool iequals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool no_proxy_matches(const std::string& host, EnvLookup env) {
  std::string list = env("no_proxy");
  if (list.empty()) list = env("NO_PROXY");
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string entry = list.substr(start, comma - start);
    entry.erase(0, entry.find_first_not_of(" \t"));
    entry.erase(entry.find_last_not_of(" \t") + 1);
    if (entry.size() > 2 && entry.front() == '[' && entry.back() == ']') entry = entry.substr(1, entry.size() - 2);
    if (entry == "*" || (!entry.empty() && iequals(entry, host))) return true;
    start = comma + 1;
  }
  return false;
}

// curl's decoding of a URL part (lib/escape.c Curl_urldecode with REJECT_ZERO): %XX becomes the
// byte, any other '%' stays; false on %00, which no credential may carry.
bool percent_decode(const std::string& in, std::string* out) {
  auto hex = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  };
  out->clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size() && hex(in[i + 1]) >= 0 && hex(in[i + 2]) >= 0) {
      const char byte = static_cast<char>(hex(in[i + 1]) * 16 + hex(in[i + 2]));
      if (byte == '\0') return false;
      out->push_back(byte);
      i += 2;
    } else {
      out->push_back(in[i]);
    }
  }
  return true;
}

// [scheme://][user[:password]@]host[:port][/...] into its parts; false when the scheme is not
// one of `schemes` (an HTTP CONNECT client speaks to http:// only) or the userinfo does not decode.
bool parse_proxy(std::string v, ProxyChoice* c, std::initializer_list<const char*> schemes) {
  if (const auto sep = v.find("://"); sep != std::string::npos) {
    const std::string scheme = v.substr(0, sep);
    if (std::none_of(schemes.begin(), schemes.end(), [&](const char* s) { return iequals(scheme, s); })) return false;
    v = v.substr(sep + 3);
  }
  v = v.substr(0, v.find('/'));
  if (const auto at = v.rfind('@'); at != std::string::npos) {
    const std::string userinfo = v.substr(0, at);
    v = v.substr(at + 1);
    const auto colon = userinfo.find(':');
    if (!percent_decode(userinfo.substr(0, colon), &c->user)) return false;
    if (!percent_decode(colon == std::string::npos ? "" : userinfo.substr(colon + 1), &c->password)) return false;
    c->has_credentials = true;
  }
  return split_host_port(v, &c->host, &c->port, "1080");
}

}  // namespace

bool split_host_port(const std::string& s, std::string* host, std::string* port, const char* default_port) {
  std::string rest;
  if (!s.empty() && s[0] == '[') {
    const auto close = s.find(']');
    if (close == std::string::npos) return false;
    *host = s.substr(1, close - 1);
    rest = s.substr(close + 1);
  } else {
    const auto colon = s.find(':');
    if (colon != s.rfind(':')) return false;  // bare IPv6 must be bracketed
    *host = s.substr(0, colon);
    rest = colon == std::string::npos ? "" : s.substr(colon);
  }
  if (rest.empty()) {
    if (default_port == nullptr) return false;
    *port = default_port;
  } else {
    if (rest[0] != ':') return false;
    *port = rest.substr(1);
  }
  if (host->empty() || port->empty() || port->size() > 5) return false;
  for (char c : *port)
    if (c < '0' || c > '9') return false;
  const int p = std::atoi(port->c_str());
  return p >= 1 && p <= 65535;
}

std::optional<NetTarget> parse_net_target(const std::string& spec) {
  NetTarget t;
  auto starts = [&](const char* p) { return spec.rfind(p, 0) == 0; };
  if (starts("unix:")) {
    t.proto = t.scheme = "unix";
    t.path = spec.substr(5);
    return t.path.empty() ? std::nullopt : std::optional<NetTarget>(t);
  }
  std::string hostport;
  const char* default_port = nullptr;
  if (starts("tcp:") || starts("udp:")) {
    t.proto = t.scheme = spec.substr(0, 3);
    hostport = spec.substr(4);
  } else if (starts("http://") || starts("https://")) {
    t.proto = "tcp";
    t.scheme = starts("http://") ? "http" : "https";
    hostport = spec.substr(t.scheme.size() + 3);
    hostport = hostport.substr(0, hostport.find('/'));
    default_port = t.scheme == "http" ? "80" : "443";
  } else {
    return std::nullopt;
  }
  if (!split_host_port(hostport, &t.host, &t.port, default_port)) return std::nullopt;
  return t;
}

namespace {

// The first of `vars` that is set decides (curl stops at it): no_proxy may still bypass it, and a
// value that does not parse with one of `schemes` keeps only its name, nothing half-parsed,
// credentials least of all.
ProxyChoice first_set(std::initializer_list<const char*> vars, const NetTarget& t, EnvLookup env,
                      std::initializer_list<const char*> schemes) {
  ProxyChoice c;
  for (const char* v : vars) {
    const std::string value = env(v);
    if (value.empty()) continue;
    if (no_proxy_matches(t.host, env)) {
      c.no_proxy_matched = true;
      return c;
    }
    c.var = v;
    c.parsed = parse_proxy(value, &c, schemes);
    if (!c.parsed) {
      c = ProxyChoice();
      c.var = v;
    }
    return c;
  }
  return c;
}

// "Proxy-Authorization: Basic ...\r\n" when the URL carried credentials (curl's default, RFC 7617).
std::string auth_header(const ProxyChoice& c) {
  return c.has_credentials ? "Proxy-Authorization: Basic " + base64(c.user + ":" + c.password) + "\r\n" : "";
}

}  // namespace

ProxyChoice pick_proxy(const NetTarget& t, EnvLookup env) {
  if (t.scheme == "http") return first_set({"http_proxy", "all_proxy", "ALL_PROXY"}, t, env, {"http"});
  return first_set({"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}, t, env, {"http"});
}

ProxyChoice pick_socks_proxy(const NetTarget& t, EnvLookup env) {
  return first_set({"all_proxy", "ALL_PROXY"}, t, env, {"socks5", "socks5h", "http"});
}

std::string absolute_request(const NetTarget& t, const ProxyChoice& c, const std::string& nonce) {
  return absolute_request(*spell_destination(t, "", ""), c, nonce);
}

std::string absolute_request(const ProxyAsk& a, const ProxyChoice& c, const std::string& nonce) {
  return "GET http://" + a.authority + "/breakout HTTP/1.1\r\nHost: " + a.host_header + "\r\n" + auth_header(c) +
         "X-Breakout: BREAKOUT-NONCE " + nonce + "\r\nConnection: close\r\n\r\n";
}

namespace {

// Dotted-quad IPv4 literal into 4 bytes (each part 0..255, decimal, no leading '+').
bool ipv4_bytes(const std::string& host, std::string* out) {
  std::string bytes;
  std::size_t start = 0;
  for (int part = 0; part < 4; ++part) {
    const std::size_t dot = host.find('.', start);
    const std::string s = host.substr(start, part == 3 ? std::string::npos : dot - start);
    if (s.empty() || s.size() > 3 || (part < 3 && dot == std::string::npos)) return false;
    for (char ch : s)
      if (ch < '0' || ch > '9') return false;
    const int v = std::atoi(s.c_str());
    if (v > 255) return false;
    bytes.push_back(static_cast<char>(v));
    start = dot + 1;
  }
  *out = bytes;
  return true;
}

}  // namespace

std::string socks5_greeting(const ProxyChoice& c) {
  return c.has_credentials ? std::string("\x05\x02\x00\x02", 4) : std::string("\x05\x01\x00", 3);
}

std::string socks5_auth(const ProxyChoice& c) {
  if (c.user.size() > 255 || c.password.size() > 255) return "";
  std::string m(1, '\x01');
  m += static_cast<char>(c.user.size());
  m += c.user;
  m += static_cast<char>(c.password.size());
  return m + c.password;
}

std::string socks5_connect(const NetTarget& t) { return socks5_connect(t.host, t.port); }

std::string socks5_connect(const std::string& host, const std::string& port_text) {
  std::string m("\x05\x01\x00", 3), v4;
  if (ipv4_bytes(host, &v4)) {
    m += '\x01';
    m += v4;
  } else if (host.rfind("::ffff:", 0) == 0 && ipv4_bytes(host.substr(7), &v4)) {
    m += '\x04';
    m += std::string(10, '\0') + "\xff\xff" + v4;
  } else {
    if (host.size() > 255) return "";
    m += '\x03';
    m += static_cast<char>(host.size());
    m += host;
  }
  const int port = std::atoi(port_text.c_str());
  m += static_cast<char>((port >> 8) & 0xff);
  m += static_cast<char>(port & 0xff);
  return m;
}

int socks5_reply_code(const std::string& reply) {
  if (reply.size() < 2 || reply[0] != '\x05') return -1;
  return static_cast<unsigned char>(reply[1]);
}

std::string base64(const std::string& bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    unsigned v = 0;
    for (std::size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out.push_back(k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 63] : '=');
  }
  return out;
}

std::string connect_request(const NetTarget& t, const ProxyChoice& c, const std::string& nonce) {
  return connect_request(*spell_destination(t, "", ""), c, nonce);
}

std::string connect_request(const ProxyAsk& a, const ProxyChoice& c, const std::string& nonce) {
  return "CONNECT " + a.authority + " HTTP/1.1\r\nHost: " + a.host_header + "\r\n" + auth_header(c) +
         "X-Breakout-Nonce: " + nonce + "\r\n\r\n";
}

bool spelling_is_name_form(const std::string& form) {
  return form == "trailing-dot" || form == "mixed-case" || form == "nul-suffix";
}

bool spelling_needs_absolute(const std::string& form) {
  return form == "host-header" || form == "uri-host" || form == "userinfo";
}

std::optional<ProxyAsk> spell_destination(const NetTarget& t, const std::string& form, const std::string& decoy) {
  const std::string plain = bracket(t.host) + ":" + t.port;
  if (form.empty()) return ProxyAsk{plain, plain, t.host};
  if (spelling_needs_absolute(form)) {
    std::string host, port;
    if (!split_host_port(decoy, &host, &port, nullptr)) return std::nullopt;
    const std::string other = bracket(host) + ":" + port;
    if (form == "host-header") return ProxyAsk{other, plain, t.host};
    if (form == "uri-host") return ProxyAsk{plain, other, t.host};
    return ProxyAsk{other + "@" + plain, plain, t.host};  // userinfo
  }
  if (spelling_is_name_form(form)) {
    std::string v4;
    if (t.host.empty() || ipv4_bytes(t.host, &v4) || t.host.find(':') != std::string::npos) return std::nullopt;
    std::string host = t.host;
    if (form == "trailing-dot") {
      host += '.';
    } else if (form == "mixed-case") {
      bool upper = true;  // every other letter, starting with the first: "DeNiEd.BrEaKoUt.TeSt"
      for (char& c : host)
        if (std::isalpha(static_cast<unsigned char>(c))) {
          c = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
          upper = !upper;
        }
    } else {  // nul-suffix
      if (decoy.empty()) return std::nullopt;
      host += std::string(1, '\0') + "." + decoy;
    }
    const std::string spelled = host + ":" + t.port;
    return ProxyAsk{spelled, spelled, host};
  }
  std::string v4;
  if (!ipv4_bytes(t.host, &v4)) return std::nullopt;
  auto byte = [&](int i) { return static_cast<unsigned>(static_cast<unsigned char>(v4[static_cast<std::size_t>(i)])); };
  const std::uint32_t number = (byte(0) << 24) | (byte(1) << 16) | (byte(2) << 8) | byte(3);
  std::string host;
  char buf[16];
  if (form == "decimal") {
    host = std::to_string(number);
  } else if (form == "hex") {
    std::snprintf(buf, sizeof buf, "0x%X", number);
    host = buf;
  } else if (form == "octal") {
    for (int i = 0; i < 4; ++i) {
      std::snprintf(buf, sizeof buf, "0%o", byte(i));
      host += (i ? "." : "") + std::string(buf);
    }
  } else if (form == "mapped6") {
    host = "::ffff:" + t.host;
  } else {
    return std::nullopt;
  }
  const std::string spelled = bracket(host) + ":" + t.port;
  return ProxyAsk{spelled, spelled, host};
}

std::string masked_credentials(const ProxyChoice& c) {
  if (!c.has_credentials) return "";
  // Two characters say which user without handing over a secret that may live in it (srt's
  // user carries the encoded command, its password the per-run token); none of a short user.
  std::string shown;
  if (c.user.size() > 4)
    for (char ch : c.user.substr(0, 2)) shown += ch > ' ' && ch < 127 ? ch : '?';
  return "user " + shown + "... (" + std::to_string(c.user.size()) + " bytes), password (" +
         std::to_string(c.password.size()) + " bytes)";
}

std::string bracket(const std::string& host) { return host.find(':') != std::string::npos ? "[" + host + "]" : host; }

}  // namespace breakout::probe
