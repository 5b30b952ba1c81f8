// Driver protocol v1: request builders and the strict answer parser (docs/drivers.md).
#include "harness/driver/protocol.h"

#include <array>

#include "harness/core/text.h"

namespace breakout::driver {

namespace {

using json = nlohmann::json;

constexpr std::size_t kExcerpt = 200;
constexpr std::size_t kMaxNameLen = 256;
constexpr std::size_t kMaxPinned = 256;
constexpr std::size_t kMaxRefusals = 64;  // hello.refuses entries (there are far fewer mechanisms)

std::string excerpt(std::string_view s) { return printable_excerpt(s, kExcerpt); }

// Brackets outside strings, counted before nlohmann sees the text: a line of
// 64 MiB of '[' must not become 64 Mi nested values.
std::size_t nesting_depth(std::string_view s) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : s) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0) --depth;
    if (deepest > kMaxNesting) break;
  }
  return deepest;
}

// False when `s` cannot be a JSON object text: after an optional UTF-8 byte order mark (which
// nlohmann skips, lexer::skip_bom) and JSON whitespace (RFC 8259 §2: space, tab, LF, CR), it
// must open with '{' and, before trailing whitespace, close with '}'. Checked before nlohmann
// parses: on text that is not JSON, nlohmann builds its parse_error messages (about twenty
// allocations, twice for a bad first token) even with exceptions off, for a result that is
// discarded here. Stricter than nlohmann in one case: its lexer takes a NUL byte for the end of
// input and ignored whatever followed a complete object; a driver's answer is the whole line.
bool may_be_json_object(std::string_view s) {
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  constexpr std::string_view kSpace = " \t\n\r";
  const std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos || s[first] != '{') return false;
  return s[s.find_last_not_of(kSpace)] == '}';
}

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), 0 when the bytes there are not one.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

// `s` as a JSON string, exactly as nlohmann's dump(-1, ' ', false, replace) writes it: valid
// UTF-8 byte for byte, '"' '\\' and control characters escaped. Written here because the
// request builders are called per exec and per fuzz input, and a json object per request is
// a dozen allocations; a string that is not valid UTF-8 still goes through nlohmann, whose
// U+FFFD replacement rules (how many bytes one replacement eats) are the ones drivers have seen.
void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t start = out.size();
  out += '"';
  std::size_t plain = 0;  // start of the run not yet appended
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence(s, i);
      if (n == 0) {
        out.resize(start);
        out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
        return;
      }
      i += n;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    out.append(s.data() + plain, i - plain);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default: {
        const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        out.append(u, sizeof u);
      }
    }
    plain = ++i;
  }
  out.append(s.data() + plain, s.size() - plain);
  out += '"';
}

const json& field(const Response& r, const char* name) {
  static const json missing;
  const auto it = r.body.find(name);
  return it == r.body.end() ? missing : *it;
}

std::string string_field(const Response& r, const char* name, bool required) {
  const json& v = field(r, name);
  if (v.is_string()) return v.get<std::string>();
  if (!required && v.is_null()) return "";
  throw ProtocolError(std::string("answer ") + std::to_string(r.id) + ": \"" + name + "\" must be a string");
}

std::optional<int> small_int_or_null(const Response& r, const char* name, int lo, int hi) {
  const json& v = field(r, name);
  if (v.is_null()) return std::nullopt;
  if (v.is_number_integer()) {
    const long long n = v.get<long long>();
    if (n >= lo && n <= hi) return static_cast<int>(n);
  }
  throw ProtocolError(std::string("answer ") + std::to_string(r.id) + ": \"" + name + "\" must be null or an integer in [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

// hello.refuses: the JSON side of the checks a profile's [refuses.*] gets (model/declared_refusal.h).
DeclaredRefusals parse_refuses(const json& refuses) {
  if (!refuses.is_object() || refuses.size() > kMaxRefusals)
    throw ProtocolError("hello: \"refuses\" must be an object of at most " + std::to_string(kMaxRefusals) +
                        " mechanisms, each {\"why\": \"...\", \"when\": [modes]}");
  DeclaredRefusals out;
  for (const auto& [name, entry] : refuses.items()) {
    const std::string here = "hello: refuses." + excerpt(name);
    if (!mechanism_from(name)) throw ProtocolError(here + ": unknown mechanism (known: " + mechanism_names() + ")");
    if (!entry.is_object()) throw ProtocolError(here + ": must be an object {\"why\": \"...\", \"when\": [modes]}");
    DeclaredRefusal d;
    for (const auto& [key, value] : entry.items()) {
      if (!is_refusal_key(key))
        throw ProtocolError(here + ": unknown field '" + excerpt(key) + "' (allowed: " + refusal_keys() + ")");
      if (key == "why") {
        if (!value.is_string()) throw ProtocolError(here + ": why must be a string");
        d.why = value.get<std::string>();
      } else {
        if (!value.is_array() || value.size() > kMaxRefusalWhen)
          throw ProtocolError(here + ": when must be a list of at most " + std::to_string(kMaxRefusalWhen) + " network modes");
        for (const auto& mode : value) {
          if (!mode.is_string()) throw ProtocolError(here + ": when must hold network mode names");
          d.when.push_back(mode.get<std::string>());
        }
      }
    }
    if (const auto problem = check_refusal(name, d)) throw ProtocolError(here + problem->where + ": " + problem->message);
    d.why = printable_excerpt(d.why, kMaxRefusalWhy);  // shown in verdict reasons and reports
    out[name] = std::move(d);
  }
  return out;
}

}  // namespace

bool is_error_code(std::string_view code) {
  static constexpr std::array<std::string_view, 6> kCodes = {"unsupported", "invalid",   "boot_failed",
                                                             "exec_failed", "no_session", "internal"};
  for (const auto c : kCodes)
    if (c == code) return true;
  return false;
}

bool is_refusal_code(std::string_view code) {
  return code == "invalid" || code == "unsupported" || code == "exec_failed";
}

std::string hello_request(long long id) {
  return json{{"id", id}, {"op", "hello"}, {"protocol", kProtocolVersion}}.dump();
}

std::string boot_request(long long id, const std::string& session, const BootPolicy& p) {
  json env = {{"set", p.env_set}};
  if (!p.env_inherit) env["inherit"] = "all";
  else if (p.env_inherit->empty()) env["inherit"] = "none";
  else env["inherit"] = *p.env_inherit;
  json policy = {{"workspace", p.workspace ? json(*p.workspace) : json(nullptr)},
                 {"writable_roots", p.writable_roots},
                 {"deny_read", p.deny_read},
                 {"network", p.network},
                 {"env", env}};
  if (!p.deny_write.empty()) policy["deny_write"] = p.deny_write;
  if (p.network == "proxy") policy["proxy"] = {{"allow", p.proxy_allow}, {"deny", p.proxy_deny}};
  return json{{"id", id}, {"op", "boot"}, {"session", session}, {"policy", policy}}.dump(-1, ' ', false,
                                                                                         json::error_handler_t::replace);
}

std::string exec_request(long long id, const std::string& session, const std::vector<std::string>& argv,
                         const std::optional<std::string>& cwd,
                         const std::vector<std::pair<std::string, std::string>>& env,
                         std::optional<double> timeout_s) {
  // Keys in the order nlohmann's std::map wrote them, then env: the same line as a json object's dump.
  // Room for every string (escaping may still grow it): one allocation for the usual line.
  std::size_t room = 96 + session.size() + (cwd ? cwd->size() : 0);
  for (const auto& a : argv) room += a.size() + 3;
  for (const auto& [name, value] : env) room += name.size() + value.size() + 6;
  std::string text;
  text.reserve(room + room / 8);
  text += "{\"argv\":[";
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (i) text += ',';
    append_json_string(text, argv[i]);
  }
  text += "],\"cwd\":";
  if (cwd) append_json_string(text, *cwd);
  else text += "null";
  text += ",\"id\":";
  text += std::to_string(id);
  text += ",\"op\":\"exec\",\"session\":";
  append_json_string(text, session);
  text += ",\"timeout_s\":";
  text += timeout_s ? json(*timeout_s).dump() : "null";  // nlohmann's shortest round-trip form of a double
  // The env object is written as a list so that a repeated name stays repeated
  // (RFC 8259 §4 leaves duplicate names to the parser: exactly what is tested).
  text += ",\"env\":{";
  for (std::size_t i = 0; i < env.size(); ++i) {
    if (i) text += ',';
    append_json_string(text, env[i].first);
    text += ':';
    append_json_string(text, env[i].second);
  }
  text += "}}";
  return text;
}

std::string shutdown_request(long long id, const std::string& session) {
  return json{{"id", id}, {"op", "shutdown"}, {"session", session}}.dump();
}

std::string write_file_request(long long id, const std::string& session, const std::string& path,
                               const std::string& content) {
  std::string text;
  text.reserve(64 + session.size() + path.size() + content.size());
  text += "{\"content\":";
  append_json_string(text, content);
  text += ",\"id\":";
  text += std::to_string(id);
  text += ",\"op\":\"write_file\",\"path\":";
  append_json_string(text, path);
  text += ",\"session\":";
  append_json_string(text, session);
  text += '}';
  return text;
}

std::string read_file_request(long long id, const std::string& session, const std::string& path) {
  std::string text;
  text.reserve(64 + session.size() + path.size());
  text += "{\"id\":";
  text += std::to_string(id);
  text += ",\"op\":\"read_file\",\"path\":";
  append_json_string(text, path);
  text += ",\"session\":";
  append_json_string(text, session);
  text += '}';
  return text;
}

Response parse_response(std::string_view line) {
  if (nesting_depth(line) > kMaxNesting)
    throw ProtocolError("answer nested deeper than " + std::to_string(kMaxNesting) + " levels: " + excerpt(line));
  Response r;
  // Without exceptions: bad JSON comes back discarded (not an object) instead of as a
  // json::parse_error whose message is built and thrown only to be replaced here.
  if (may_be_json_object(line)) r.body = json::parse(line, nullptr, false);
  if (!r.body.is_object()) throw ProtocolError("not a JSON object: " + excerpt(line));
  // By reference (a `cond ? body["x"] : json()` would copy the value, a whole error object).
  const auto member = [](const json& object, const char* name) -> const json& {
    static const json missing;
    const auto it = object.find(name);
    return it == object.end() ? missing : *it;
  };
  const json& id = member(r.body, "id");
  if (!id.is_number_integer()) throw ProtocolError("answer without an integer \"id\": " + excerpt(line));
  r.id = id.get<long long>();
  const json& ok = member(r.body, "ok");
  if (!ok.is_boolean()) throw ProtocolError("answer " + std::to_string(r.id) + " without a boolean \"ok\"");
  r.ok = ok.get<bool>();
  if (!r.ok) {
    const json& e = member(r.body, "error");
    const json& c = e.is_object() ? member(e, "code") : e;
    const bool valid = e.is_object() && c.is_string();
    const std::string code = valid ? c.get<std::string>() : "";
    r.error_code = is_error_code(code) ? code : "internal";
    const json& m = valid ? member(e, "message") : e;
    std::string message = valid && m.is_string() ? m.get<std::string>() : "";
    if (!valid) message = "failure without a valid error object";
    else if (!is_error_code(code)) message = "(unknown code " + excerpt(code) + ") " + message;
    r.error_message = printable_excerpt(message, 2048);
  }
  return r;
}

void expect_ok(const Response& r) {
  if (!r.ok) throw DriverFailure(r.error_code, r.error_message);
}

Hello parse_hello(const Response& r) {
  expect_ok(r);
  Hello h;
  const json& protocol = field(r, "protocol");
  if (!protocol.is_number_integer() || protocol.get<long long>() != kProtocolVersion)
    throw ProtocolError("hello: the driver speaks protocol " + excerpt(protocol.dump()) + ", breakout speaks 1");
  h.name = printable_excerpt(string_field(r, "name", true), kMaxNameLen);
  h.version = printable_excerpt(string_field(r, "version", false), kMaxNameLen);
  h.platform = printable_excerpt(string_field(r, "platform", true), 32);
  const json& caps = field(r, "capabilities");
  if (!caps.is_object()) throw ProtocolError("hello: \"capabilities\" must be an object");
  if (caps.contains("network")) {
    if (!caps["network"].is_array()) throw ProtocolError("hello: capabilities.network must be a list");
    for (const auto& m : caps["network"]) {
      if (!m.is_string() || (m != "none" && m != "loopback" && m != "full" && m != "proxy"))
        throw ProtocolError("hello: capabilities.network holds " + excerpt(m.dump()));
      h.capabilities.network.push_back(m.get<std::string>());
    }
  }
  auto flag = [&](const char* name) {
    if (!caps.contains(name)) return false;
    if (!caps[name].is_boolean()) throw ProtocolError(std::string("hello: capabilities.") + name + " must be a boolean");
    return caps[name].get<bool>();
  };
  h.capabilities.deny_read = flag("deny_read");
  h.capabilities.deny_write = flag("deny_write");
  h.capabilities.fs = flag("fs");
  h.capabilities.persistent_setup = flag("persistent_setup");
  if (caps.contains("concurrent_exec")) {
    const json& c = caps["concurrent_exec"];
    if (!c.is_number_integer() || c.get<long long>() < 1 || c.get<long long>() > 1024)
      throw ProtocolError("hello: capabilities.concurrent_exec must be an integer in [1, 1024]");
    h.capabilities.concurrent_exec = static_cast<int>(c.get<long long>());
  }
  const json& pinned = field(r, "pinned_env");
  if (!pinned.is_null()) {
    if (!pinned.is_object() || pinned.size() > kMaxPinned)
      throw ProtocolError("hello: \"pinned_env\" must be an object of at most 256 strings");
    for (const auto& [k, v] : pinned.items()) {
      if (!v.is_string() || k.empty() || k.size() > kMaxNameLen || k.find('=') != std::string::npos)
        throw ProtocolError("hello: pinned_env entry " + excerpt(k) + " is not NAME (no '=') -> string");
      h.pinned_env[k] = v.get<std::string>();
    }
  }
  const json& refuses = field(r, "refuses");
  if (!refuses.is_null()) h.refuses = parse_refuses(refuses);
  return h;
}

std::string parse_boot(const Response& r) {
  expect_ok(r);
  return string_field(r, "workspace", false);
}

ExecResult parse_exec(const Response& r) {
  expect_ok(r);
  ExecResult x;
  x.exit_code = small_int_or_null(r, "exit_code", -2147483647, 2147483647);
  x.signal = small_int_or_null(r, "signal", 1, 128);
  x.out = string_field(r, "stdout", false);
  x.err = string_field(r, "stderr", false);
  const json& t = field(r, "timed_out");
  if (!t.is_null() && !t.is_boolean()) throw ProtocolError("exec: \"timed_out\" must be a boolean");
  x.timed_out = t.is_boolean() && t.get<bool>();
  if (!x.exit_code && !x.signal && !x.timed_out)
    throw ProtocolError("exec: the answer has neither exit_code, signal nor timed_out");
  return x;
}

std::string parse_read_file(const Response& r) {
  expect_ok(r);
  return string_field(r, "content", true);
}

}  // namespace breakout::driver
