// net-connect's target syntax and proxy choice (curl's rules), shared by the POSIX and the Windows probe.
//
//   auto t = parse_net_target("https://127.0.0.1:8443/x");   // proto tcp, scheme https
//   ProxyChoice c = pick_proxy(*t, &env_value);              // env_value: the platform's lookup
//   if (!c.var.empty() && c.parsed) connect to c.host:c.port, send connect_request(*t, c, nonce)
//
// The variable names are curl's (curl(1) "ENVIRONMENT"); how a name is looked up is the caller's:
// getenv is case-sensitive on POSIX, GetEnvironmentVariableW case-insensitive on Windows, so there
// http_proxy also finds HTTP_PROXY (as it does for curl on Windows). Portable.
#pragma once

#include <optional>
#include <string>

namespace breakout::probe {

struct NetTarget {
  std::string proto;   // tcp, udp, unix
  std::string scheme;  // tcp, udp, unix, http, https
  std::string host;    // without brackets
  std::string port;
  std::string path;    // unix only
};

// tcp:HOST:PORT, udp:HOST:PORT (HOST may be [v6]), unix:PATH, http[s]://HOST[:PORT][/...]
// (default port 80/443); nullopt when malformed.
std::optional<NetTarget> parse_net_target(const std::string& spec);

// "host:port" or "[v6]:port" into parts (`default_port` when there is none; null: required);
// false on a malformed value (a bare IPv6 address, a port outside 1..65535).
bool split_host_port(const std::string& s, std::string* host, std::string* port, const char* default_port);

// A variable's value, "" when unset or empty.
using EnvLookup = std::string (*)(const char* name);

struct ProxyChoice {
  std::string var;                // the variable that applies ("" = direct)
  bool parsed = false;            // its value is [http://][user[:password]@]host[:port][/...]
  std::string host, port;         // the proxy (port 1080 by default, like curl)
  bool no_proxy_matched = false;  // a proxy applied but no_proxy (else NO_PROXY) named the host
  // The URL's userinfo, percent-decoded as curl does: a secret the sandbox handed the child (srt
  // puts a per-run token there), sent to the proxy only and never reported (masked_credentials).
  bool has_credentials = false;
  std::string user, password;     // password "" for "user@host"
};

// Scheme http: http_proxy only (curl ignores HTTP_PROXY: httpoxy); others: https_proxy, then
// HTTPS_PROXY; then all_proxy, ALL_PROXY. no_proxy (else NO_PROXY) is a comma list of exact host
// names (case-insensitive, [v6] allowed) or "*". Credentials are kept as curl keeps them: split
// at the first ':' of the userinfo, each half percent-decoded (%XX; a '%' not followed by two hex
// digits stays as is; %00 makes the value unparsed, curl refuses it too).
ProxyChoice pick_proxy(const NetTarget& t, EnvLookup env);

// SOCKS5 (RFC 1928) proxy choice: all_proxy, then ALL_PROXY (curl's order), no_proxy as above.
// The value may say socks5://, socks5h://, http:// (srt advertises one port that serves both HTTP
// CONNECT and SOCKS, sandbox-utils.js "mux") or no scheme; credentials as pick_proxy keeps them.
ProxyChoice pick_socks_proxy(const NetTarget& t, EnvLookup env);

// The plain-HTTP request through a proxy for `t` (absolute-URI form, RFC 9112 3.2.2): the proxy
// forwards its header "X-Breakout: BREAKOUT-NONCE <nonce>" to the destination, where the
// listener reads it; Proxy-Authorization as in connect_request.
std::string absolute_request(const NetTarget& t, const ProxyChoice& c, const std::string& nonce);

// What the proxy is told about the destination: by default the target as given; --spell FORM
// writes it another way, for the parser differentials allowlisting proxies had: the proxy's check and its connect must read the same destination.
struct ProxyAsk {
  std::string authority;    // CONNECT's request target and the absolute URI's authority (after http://)
  std::string host_header;  // the Host header
  std::string socks_host;   // SOCKS5's host field (socks5_connect: an IPv4 literal, ::ffff:v4 or a name)
};
// FORM: "" (as given); IPv4 literal spellings of the target's host, which inet_aton(3) and so
// getaddrinfo(3) read as the same address: "decimal" (one 32-bit number), "octal" (0-prefixed
// parts), "hex" (one 0x number), "mapped6" ([::ffff:a.b.c.d], RFC 4291 2.5.5.2); and for the
// absolute URI, with `decoy` (HOST:PORT, the destination the proxy admits): "host-header" (the
// URI names the decoy, Host the target), "uri-host" (the URI names the target, Host the decoy),
// "userinfo" (http://DECOY@TARGET/: the decoy as the URI's userinfo, RFC 3986 3.2.1).
// Name forms, for a host that is a name (net-connect --name): "trailing-dot" (NAME.), "mixed-case"
// (every other letter upper-case), "nul-suffix" (NAME, a NUL byte, then "." and `decoy`, an allowed
// domain: a check that reads the whole string sees the allowed suffix, a C resolver the name
// before the NUL; reported against Claude Code's sandbox over SOCKS5).
// nullopt for an unknown form, a missing decoy, an IP spelling of a host that is no IPv4 literal,
// or a name form of an IP literal.
std::optional<ProxyAsk> spell_destination(const NetTarget& t, const std::string& form, const std::string& decoy);
// True for the name forms (trailing-dot, mixed-case, nul-suffix).
bool spelling_is_name_form(const std::string& form);
// True for the forms only an absolute URI can carry (host-header, uri-host, userinfo).
bool spelling_needs_absolute(const std::string& form);
std::string absolute_request(const ProxyAsk& a, const ProxyChoice& c, const std::string& nonce);
std::string connect_request(const ProxyAsk& a, const ProxyChoice& c, const std::string& nonce);

// SOCKS5 messages: the greeting (no-auth, plus user/password RFC 1929 when `c` has credentials),
// the RFC 1929 sub-negotiation ("" when user or password exceeds 255 bytes), and CONNECT to `t`
// (an IPv4 literal as ATYP 1, anything else as a name, ATYP 3; "" for a name over 255 bytes).
std::string socks5_greeting(const ProxyChoice& c);
std::string socks5_auth(const ProxyChoice& c);
std::string socks5_connect(const NetTarget& t);
std::string socks5_connect(const std::string& host, const std::string& port);  // "::ffff:a.b.c.d" as ATYP 4
// The REP field of a SOCKS5 reply (0 = succeeded), -1 when `reply` is no SOCKS5 reply.
int socks5_reply_code(const std::string& reply);

// The CONNECT request for `t` through `c` (RFC 9110 9.3.6): Host, Proxy-Authorization Basic
// base64(user:password) when the URL carried credentials (curl's default scheme, RFC 7617), and
// X-Breakout-Nonce; the caller sends the nonce line into the tunnel after it.
std::string connect_request(const NetTarget& t, const ProxyChoice& c, const std::string& nonce);

// What a report may say of the credentials: the user's first two characters and both lengths,
// never the password or the whole user; "" without credentials.
std::string masked_credentials(const ProxyChoice& c);

// RFC 4648 base64 with padding.
std::string base64(const std::string& bytes);

// "[v6]" for an IPv6 literal, the host as is otherwise.
std::string bracket(const std::string& host);

}  // namespace breakout::probe
