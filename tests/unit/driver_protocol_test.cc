// Driver protocol v1 as data: request lines, strict answer parsing, --driver command splitting.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

TEST(DriverProtocol, RejectsWhatIsNotAnAnswer) {
  EXPECT_THROW(parse_response(R"({"id": 3, "ok": tru)"), ProtocolError);
  EXPECT_THROW(parse_response("[1]"), ProtocolError);
  EXPECT_THROW(parse_response(R"({"ok": true})"), ProtocolError);
  EXPECT_THROW(parse_response(R"({"id": "1", "ok": true})"), ProtocolError);
  EXPECT_THROW(parse_response(R"({"id": 1, "ok": 1})"), ProtocolError);
  EXPECT_THROW(parse_response(std::string(100, '[') + std::string(100, ']')), ProtocolError);
  EXPECT_NO_THROW(parse_response(R"({"id": 1, "ok": true, "x": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["})"));
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

TEST(DriverCommandLine, SplitsLikeAShellWithoutExpanding) {
  EXPECT_EQ(split_command_line("python3 my_driver.py --flag"),
            (std::vector<std::string>{"python3", "my_driver.py", "--flag"}));
  EXPECT_EQ(split_command_line(R"(python3 "dir with space/d.py" 'it''s' a\ b $HOME)"),
            (std::vector<std::string>{"python3", "dir with space/d.py", "its", "a b", "$HOME"}));
  EXPECT_EQ(split_command_line(R"(x "" y)"), (std::vector<std::string>{"x", "", "y"}));
  EXPECT_THROW(split_command_line("python3 'unterminated"), Error);
  EXPECT_THROW(split_command_line("   "), Error);
}
