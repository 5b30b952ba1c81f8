// Driver protocol v1 as data: request lines, strict answer parsing, --driver command splitting.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/core/text.h"
#include "harness/driver/protocol.h"
#include "harness/spawner/driver_spawner.h"

using namespace breakout;
using namespace breakout::driver;
using nlohmann::json;

TEST(DriverProtocol, RequestsAreOneLineOfJsonWithIdAndOp) {
  const json hello = json::parse(hello_request(1));
  EXPECT_EQ(hello, (json{{"id", 1}, {"op", "hello"}, {"protocol", 1}}));
  BootPolicy p;
  p.workspace = "/w";
  p.writable_roots = {"/x"};
  p.network = "none";
  p.env_inherit = std::vector<std::string>{};
  p.env_set = {{"HTTP_PROXY", "http://127.0.0.1:9"}};
  const std::string boot = boot_request(2, "s1", p);
  EXPECT_EQ(boot.find('\n'), std::string::npos);
  const json b = json::parse(boot);
  EXPECT_EQ(b["policy"]["env"]["inherit"], "none");
  EXPECT_EQ(b["policy"]["env"]["set"]["HTTP_PROXY"], "http://127.0.0.1:9");
  p.env_inherit.reset();
  EXPECT_EQ(json::parse(boot_request(3, "s1", p))["policy"]["env"]["inherit"], "all");
}

TEST(DriverProtocol, ExecKeepsARepeatedVariableRepeatedInTheText) {
  const std::string line = exec_request(7, "s1", {"/bin/true"}, std::nullopt, {{"A", "1"}, {"A", "2"}}, std::nullopt);
  EXPECT_NE(line.find(R"("env":{"A":"1","A":"2"})"), std::string::npos) << line;
  const json j = json::parse(line);  // still valid JSON; the last one wins in nlohmann
  EXPECT_TRUE(j["cwd"].is_null());
  EXPECT_TRUE(j["timeout_s"].is_null());  // "no timeout" is null, never a default
  EXPECT_EQ(j["op"], "exec");
}

namespace {

// The builders as they were, a json object dumped (key order: std::map's), for comparison.
std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string reference_exec(long long id, const std::string& session, const std::vector<std::string>& argv,
                           const std::optional<std::string>& cwd,
                           const std::vector<std::pair<std::string, std::string>>& env, std::optional<double> timeout_s) {
  std::string text = dumped({{"id", id}, {"op", "exec"}, {"session", session}, {"argv", argv},
                             {"cwd", cwd ? json(*cwd) : json(nullptr)},
                             {"timeout_s", timeout_s ? json(*timeout_s) : json(nullptr)}});
  std::string envtext = "{";
  for (std::size_t i = 0; i < env.size(); ++i) envtext += (i ? "," : "") + dumped(env[i].first) + ":" + dumped(env[i].second);
  text.insert(text.size() - 1, ",\"env\":" + envtext + "}");
  return text;
}

}  // namespace

// The builders write their JSON text directly (no json object per request): the same bytes as
// nlohmann's dump, valid UTF-8 kept, invalid bytes replaced by U+FFFD by nlohmann's own rules.
TEST(DriverProtocol, BuildersWriteWhatNlohmannWrote) {
  std::vector<std::string> strings = {"", "x", "s1", "/tmp/a b", "\"\\\b\f\n\r\t", std::string("\0\x01\x1f\x7f", 4),
                                      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\xef\xbf\xbd", "\xed\x9f\xbf",
                                      "\xf4\x8f\xbf\xbf"};
  // Every string of one and two bytes from bytes that start, continue or break UTF-8 sequences.
  const std::string bytes = std::string("\0\x1f \"\\a\x7f\x80\x8f\x90\x9f\xa0\xbf\xc0\xc1\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff", 24);
  for (const char a : bytes) {
    strings.emplace_back(1, a);
    for (const char b : bytes) strings.push_back(std::string{a, b});
  }
  // And random strings up to 12 bytes, biased to the UTF-8 lead and continuation bytes.
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  const auto next = [&] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  for (int n = 0; n < 20000; ++n) {
    std::string s(next() % 13, ' ');
    for (auto& c : s) c = next() % 2 ? bytes[next() % bytes.size()] : static_cast<char>(next() % 256);
    strings.push_back(s);
  }
  for (const auto& s : strings) {
    ASSERT_EQ(exec_request(7, s, {s, "x"}, s, {{s, s}, {"A", "1"}}, 1.5),
              reference_exec(7, s, {s, "x"}, s, {{s, s}, {"A", "1"}}, 1.5))
        << json(s).dump(-1, ' ', true, json::error_handler_t::replace);
    ASSERT_EQ(write_file_request(9, s, s, s),
              dumped({{"id", 9}, {"op", "write_file"}, {"session", s}, {"path", s}, {"content", s}}));
    ASSERT_EQ(read_file_request(-3, s, s), dumped({{"id", -3}, {"op", "read_file"}, {"session", s}, {"path", s}}));
  }
  EXPECT_EQ(exec_request(1, "s", {}, std::nullopt, {}, std::nullopt), reference_exec(1, "s", {}, std::nullopt, {}, std::nullopt));
  EXPECT_EQ(exec_request(1, "s", {"a", "b", "c"}, std::nullopt, {}, 0.1), reference_exec(1, "s", {"a", "b", "c"}, std::nullopt, {}, 0.1));
}

TEST(DriverProtocol, RejectsWhatIsNotAnAnswer) {
  EXPECT_THROW(parse_response(R"({"id": 3, "ok": tru)"), ProtocolError);
  EXPECT_THROW(parse_response("[1]"), ProtocolError);
  EXPECT_THROW(parse_response(R"({"ok": true})"), ProtocolError);
  EXPECT_THROW(parse_response(R"({"id": "1", "ok": true})"), ProtocolError);
  EXPECT_THROW(parse_response(R"({"id": 1, "ok": 1})"), ProtocolError);
  EXPECT_THROW(parse_response(std::string(100, '[') + std::string(100, ']')), ProtocolError);
  EXPECT_NO_THROW(parse_response(R"({"id": 1, "ok": true, "x": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["})"));
}

// parse_response refuses text that cannot be an object before nlohmann parses it (protocol.cc,
// may_be_json_object): that shortcut must refuse nothing nlohmann reads as a valid answer, byte
// order mark and RFC 8259 whitespace included, and let nothing else through. One deliberate
// difference: nlohmann's lexer takes a NUL byte for the end of input, so it read
// `{"id":1,"ok":true}<NUL>anything` as an answer; the answer is the whole line, and such a line
// is now refused (this test found it).
TEST(DriverProtocol, ObjectShortcutAgreesWithNlohmann) {
  const std::vector<std::string> before = {"", " ", "\t\r\n ", "\xEF\xBB\xBF", "\xEF\xBB\xBF \n", " \xEF\xBB\xBF",
                                           "\xEF\xBB", "x", "\v", std::string(1, '\0')};
  const std::vector<std::string> bodies = {R"({"id":1,"ok":true})", R"({"id" : 2 , "ok" : false})", "{}", "[1]", "{", "}", "1", ""};
  const std::vector<std::string> after = {"", " ", "\n", "\r\n\t", "x", "}", "\f", std::string(1, '\0')};
  int accepted = 0;
  for (const auto& b : before)
    for (const auto& body : bodies)
      for (const auto& a : after) {
        const std::string line = b + body + a;
        const json j = json::parse(line, nullptr, false);
        const bool answer = line.find('\0') == std::string::npos && j.is_object() && j.contains("id") && j["id"].is_number_integer() && j.contains("ok") &&
                            j["ok"].is_boolean();
        bool parsed = true;
        try {
          (void)parse_response(line);
        } catch (const ProtocolError&) {
          parsed = false;
        }
        EXPECT_EQ(parsed, answer) << printable_excerpt(line, 80);
        accepted += parsed;
      }
  EXPECT_EQ(accepted, 5 * 2 * 4);  // the BOM- and whitespace-led bodies with whitespace after
}

TEST(DriverProtocol, FailureCodesOutsideTheListBecomeInternal) {
  const Response r = parse_response(R"({"id": 4, "ok": false, "error": {"code": "oops<script>", "message": "m"}})");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_code, "internal");
  EXPECT_THROW(parse_boot(r), DriverFailure);
  const Response b = parse_response(R"({"id": 4, "ok": false, "error": {"code": "boot_failed", "message": "no desktop"}})");
  try {
    parse_boot(b);
    FAIL() << "a failed boot must throw";
  } catch (const DriverFailure& e) {
    EXPECT_EQ(e.code, "boot_failed");
  }
  EXPECT_EQ(parse_response(R"({"id": 5, "ok": false})").error_code, "internal");
}

TEST(DriverProtocol, HelloIsCheckedFieldByField) {
  const Response ok = parse_response(
      R"({"id":1,"ok":true,"protocol":1,"name":"d","version":"1","platform":"linux",)"
      R"("capabilities":{"network":["none","full"],"deny_read":true,"concurrent_exec":4,"fs":false},)"
      R"("pinned_env":{"HTTP_PROXY":"http://127.0.0.1:9"}})");
  const Hello h = parse_hello(ok);
  EXPECT_EQ(h.capabilities.network, (std::vector<std::string>{"none", "full"}));
  EXPECT_EQ(h.capabilities.concurrent_exec, 4);
  EXPECT_EQ(h.pinned_env.at("HTTP_PROXY"), "http://127.0.0.1:9");
  EXPECT_THROW(parse_hello(parse_response(R"({"id":1,"ok":true,"protocol":2,"name":"d","platform":"linux","capabilities":{}})")),
               ProtocolError);
  EXPECT_THROW(parse_hello(parse_response(R"({"id":1,"ok":true,"protocol":1,"name":"d","platform":"linux","capabilities":{"network":["internet"]}})")),
               ProtocolError);
  EXPECT_THROW(parse_hello(parse_response(R"({"id":1,"ok":true,"protocol":1,"name":"d","platform":"linux","capabilities":{"concurrent_exec":0}})")),
               ProtocolError);
  EXPECT_THROW(parse_hello(parse_response(R"({"id":1,"ok":true,"protocol":1,"name":"d","platform":"linux","capabilities":{},"pinned_env":{"A=B":"x"}})")),
               ProtocolError);
}

namespace {
Hello hello_with(const std::string& refuses) {
  return parse_hello(parse_response(R"({"id":1,"ok":true,"protocol":1,"name":"d","platform":"linux","capabilities":{},"refuses":)" +
                                    refuses + "}"));
}
std::string hello_error(const std::string& refuses) {
  try {
    (void)hello_with(refuses);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

// hello.refuses: the profiles' [refuses.*] vocabulary, checked as strictly (model/declared_refusal.h).
TEST(DriverProtocol, HelloRefusesIsTheProfilesVocabulary) {
  const Hello h = hello_with(R"({"icmp":{"why":"no CAP_NET_RAW"},"af_unix":{"why":"seccomp","when":["none","proxy"]}})");
  ASSERT_EQ(h.refuses.size(), 2u);
  EXPECT_EQ(h.refuses.at("icmp").why, "no CAP_NET_RAW");
  EXPECT_TRUE(h.refuses.at("icmp").when.empty());
  EXPECT_EQ(h.refuses.at("af_unix").when, (std::vector<std::string>{"none", "proxy"}));
  // Without the field (every driver before it): nothing declared.
  EXPECT_TRUE(parse_hello(parse_response(R"({"id":1,"ok":true,"protocol":1,"name":"d","platform":"linux","capabilities":{}})"))
                  .refuses.empty());
  // Plain messages, naming what was wrong.
  EXPECT_NE(hello_error(R"({"icmp":{"why":"x","whn":["none"]}})").find("refuses.icmp: unknown field 'whn' (allowed: when, why)"),
            std::string::npos);
  EXPECT_NE(hello_error(R"({"keyctl":{"why":"x"}})").find("refuses.keyctl: unknown mechanism"), std::string::npos);
  EXPECT_NE(hello_error(R"({"icmp":{}})").find("why must say why"), std::string::npos);
  EXPECT_NE(hello_error(R"({"icmp":{"why":""}})").find("why must say why"), std::string::npos);
  EXPECT_NE(hello_error(R"({"icmp":{"why":"x","when":["off"]}})").find("refuses.icmp.when: unknown network mode 'off'"),
            std::string::npos);
  EXPECT_NE(hello_error(R"({"icmp":{"why":7}})").find("why must be a string"), std::string::npos);
  EXPECT_NE(hello_error(R"({"icmp":{"why":"x","when":"none"}})").find("when must be a list"), std::string::npos);
  EXPECT_NE(hello_error(R"(["icmp"])").find("\"refuses\" must be an object"), std::string::npos);
  EXPECT_NE(hello_error(R"({"icmp":"x"})").find("must be an object"), std::string::npos);
  // Bounded: a long why, five modes, a name with control characters (shown as an excerpt).
  EXPECT_NE(hello_error(R"({"icmp":{"why":")" + std::string(kMaxRefusalWhy + 1, 'w') + R"("}})").find("longer than"),
            std::string::npos);
  EXPECT_NE(hello_error(R"({"icmp":{"why":"x","when":["none","none","none","none","none"]}})").find("at most 4"),
            std::string::npos);
  const std::string odd = hello_error(R"({"ic\u001bmp":{"why":"x"}})");
  EXPECT_EQ(odd.find('\x1b'), std::string::npos) << odd;
  std::string many = "{";
  for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + "\"m" + std::to_string(i) + "\":{}";
  EXPECT_NE(hello_error(many + "}").find("at most 64"), std::string::npos);
}

TEST(DriverProtocol, RefusalCodesAreTheClearOnes) {
  for (const char* c : {"invalid", "unsupported", "exec_failed"}) EXPECT_TRUE(is_refusal_code(c)) << c;
  for (const char* c : {"boot_failed", "no_session", "internal", ""}) EXPECT_FALSE(is_refusal_code(c)) << c;
}

TEST(DriverProtocol, ExecAnswersNeedAnOutcome) {
  const ExecResult killed = parse_exec(parse_response(R"({"id":3,"ok":true,"exit_code":null,"signal":9,"stdout":"","stderr":""})"));
  EXPECT_FALSE(killed.exit_code);
  EXPECT_EQ(killed.signal, 9);
  const ExecResult done = parse_exec(parse_response(R"({"id":3,"ok":true,"exit_code":42,"stdout":"o","stderr":"e"})"));
  EXPECT_EQ(done.exit_code, 42);
  EXPECT_EQ(done.out, "o");
  EXPECT_FALSE(done.timed_out);
  EXPECT_THROW(parse_exec(parse_response(R"({"id":3,"ok":true,"stdout":""})")), ProtocolError);
  EXPECT_THROW(parse_exec(parse_response(R"({"id":3,"ok":true,"exit_code":0,"stdout":5})")), ProtocolError);
  EXPECT_THROW(parse_exec(parse_response(R"({"id":3,"ok":true,"exit_code":0,"signal":4096})")), ProtocolError);
}

// What fuzz/driver_message_fuzzer.cc relies on to skip work: on a failure answer every
// interpretation throws the answer's DriverFailure, and an interpretation whose fields are
// all absent throws ProtocolError, whatever else the answer holds.
TEST(DriverProtocol, InterpretationsRejectWhatTheFuzzerSkips) {
  const Response failure = parse_response(
      R"({"id":1,"ok":false,"error":{"code":"invalid","message":"m"},"protocol":1,"name":"n","platform":"p",)"
      R"("capabilities":{},"exit_code":0,"content":"c","workspace":"/w"})");
  const auto code = [&](auto&& interpretation) {
    try {
      interpretation();
    } catch (const DriverFailure& e) {
      return e.code;
    }
    return std::string("no DriverFailure");
  };
  EXPECT_EQ(code([&] { (void)parse_hello(failure); }), "invalid");
  EXPECT_EQ(code([&] { (void)parse_boot(failure); }), "invalid");
  EXPECT_EQ(code([&] { (void)parse_exec(failure); }), "invalid");
  EXPECT_EQ(code([&] { (void)parse_read_file(failure); }), "invalid");
  EXPECT_EQ(code([&] { expect_ok(failure); }), "invalid");
  // Everything but the interpretation's own keys, with values that would be refused if read.
  const Response other = parse_response(
      R"({"id":2,"ok":true,"name":7,"platform":[],"capabilities":1,"pinned_env":"x","workspace":"/w",)"
      R"("error":{"code":"invalid"},"extra":{"exit_code":0,"protocol":1,"content":"c"}})");
  EXPECT_THROW(parse_hello(other), ProtocolError);     // no "protocol"
  EXPECT_THROW(parse_exec(other), ProtocolError);      // none of exit_code/signal/timed_out/stdout/stderr
  EXPECT_THROW(parse_read_file(other), ProtocolError); // no "content"
}

TEST(DriverCommandLine, SplitsLikeAShellWithoutExpanding) {
  EXPECT_EQ(split_command_line("python3 my_driver.py --flag"),
            (std::vector<std::string>{"python3", "my_driver.py", "--flag"}));
  EXPECT_EQ(split_command_line(R"(python3 "dir with space/d.py" 'it''s' a\ b $HOME)"),
            (std::vector<std::string>{"python3", "dir with space/d.py", "its", "a b", "$HOME"}));
  EXPECT_EQ(split_command_line(R"(x "" y)"), (std::vector<std::string>{"x", "", "y"}));
  EXPECT_THROW(split_command_line("python3 'unterminated"), Error);
  EXPECT_THROW(split_command_line("   "), Error);
}
