// The Windows net-connect probe's target syntax and proxy choice: curl's rules, as probes/net-connect.cc applies them.
#pragma once

#include <optional>
#include <string>

namespace breakout::probe {

struct ProxyTarget {
  std::string proto;   // tcp, udp
  std::string scheme;  // tcp, udp, http, https
  std::string host;    // without brackets
  std::string port;
};

// tcp:ADDR:PORT, udp:ADDR:PORT, http[s]://ADDR[:PORT][/...] (default port 80/443); nullopt when malformed.
std::optional<ProxyTarget> parse_proxy_target(const std::string& spec);

struct ProxyChoice {
  std::string var;                // the variable that applies ("" = direct)
  bool parsed = false;            // its value is [http://][user:pass@]host[:port]
  std::string host, port;         // the proxy (port 1080 by default, like curl)
  bool no_proxy_matched = false;  // a proxy applied but no_proxy/NO_PROXY named the host
};

// Scheme http: http_proxy; others: https_proxy, HTTPS_PROXY; then all_proxy, ALL_PROXY.
// Names are looked up with GetEnvironmentVariableW: case-insensitive on Windows.
ProxyChoice pick_proxy(const ProxyTarget& t);

// "[v6]" for an IPv6 literal, the host as is otherwise.
std::string bracket(const std::string& host);

}  // namespace breakout::probe
