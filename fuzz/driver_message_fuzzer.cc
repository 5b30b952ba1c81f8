// Fuzzes what a driver sends (sandboxed side): answers parse strictly, everything kept is typed, bounded and printable.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_check.h"
#include "harness/core/escape.h"
#include "harness/driver/protocol.h"
#include "harness/spawner/driver_spawner.h"

using namespace breakout;
using namespace breakout::driver;
using nlohmann::json;

namespace {

// Each interpretation of a parsed answer either yields checked fields or throws
// one of the two protocol errors: anything else escapes and is a crash.
template <typename F>
void interpret(const Response& r, F&& f) {
  try {
    f();
  } catch (const DriverFailure& e) {
    FUZZ_CHECK(!r.ok && is_error_code(e.code));
  } catch (const ProtocolError&) {
  }
}

void check_answer(std::string_view line) {
  Response r;
  try {
    r = parse_response(line);
  } catch (const ProtocolError&) {
    return;
  }
  FUZZ_CHECK(r.body.is_object());
  if (!r.ok) {
    FUZZ_CHECK(is_error_code(r.error_code));
    FUZZ_CHECK(fuzz::is_printable(r.error_message) && r.error_message.size() <= 2048 + 64);
  }
  if (!r.ok) {
    // Every interpretation starts with expect_ok(r), so on a failure answer each throws this same
    // DriverFailure before reading a field (tests/unit/driver_protocol_test.cc,
    // InterpretationsRejectWhatTheFuzzerSkips): one per answer, picked by its id, checks what all
    // five did, and each is still reached (the seeds have failures with ids 0 to 4 modulo 5).
    bool threw = false;
    interpret(r, [&] {
      threw = true;
      switch ((r.id % 5 + 5) % 5) {
        case 0: (void)parse_hello(r); break;
        case 1: (void)parse_boot(r); break;
        case 2: (void)parse_exec(r); break;
        case 3: (void)parse_read_file(r); break;
        default: expect_ok(r);
      }
      threw = false;
    });
    FUZZ_CHECK(threw);
    return;
  }
  // An interpretation whose fields are all absent rejects without reading anything else (the
  // same unit test): it runs whenever the body has one of them, on every other answer it is skipped.
  const auto has = [&](const char* key) { return r.body.contains(key); };
  if (has("protocol")) {
    interpret(r, [&] {
      const Hello h = parse_hello(r);
      for (const auto* s : {&h.name, &h.version, &h.platform}) FUZZ_CHECK(fuzz::is_printable(*s) && s->size() <= 300);
      for (const auto& m : h.capabilities.network) FUZZ_CHECK(m == "none" || m == "loopback" || m == "full");
      FUZZ_CHECK(h.capabilities.concurrent_exec >= 1 && h.capabilities.concurrent_exec <= 1024);
      FUZZ_CHECK(h.pinned_env.size() <= 256);
      for (const auto& [k, v] : h.pinned_env) FUZZ_CHECK(!k.empty() && k.size() <= 256 && k.find('=') == std::string::npos);
      // refuses: known mechanisms only, a printable bounded why, at most four known modes.
      FUZZ_CHECK(h.refuses.size() <= 64);
      for (const auto& [m, d] : h.refuses) {
        FUZZ_CHECK(mechanism_from(m).has_value() && !d.why.empty() && d.why.size() <= 4 * kMaxRefusalWhy);  // \xNN at worst
        FUZZ_CHECK(fuzz::is_printable(d.why) && d.when.size() <= kMaxRefusalWhen);
      }
    });
  }
  interpret(r, [&] { (void)parse_boot(r); });
  if (has("exit_code") || has("signal") || has("timed_out") || has("stdout") || has("stderr")) {
    interpret(r, [&] {
      const ExecResult x = parse_exec(r);
      FUZZ_CHECK(x.exit_code || x.signal || x.timed_out);
      FUZZ_CHECK(!x.signal || (*x.signal >= 1 && *x.signal <= 128));
    });
  }
  if (has("content")) interpret(r, [&] { (void)parse_read_file(r); });
  interpret(r, [&] { expect_ok(r); });
}

// Requests carry caller strings (paths, argv, env) that may not be UTF-8: every request line is
// the dump nlohmann would write of the same object (protocol.cc's builders promise exactly that:
// keys in std::map order, env pairs as given), so it must equal the line assembled here around
// nlohmann's own encoding of s: valid UTF-8 kept byte for byte, anything else replaced by U+FFFD
// as nlohmann's replacing dump does. Equal bytes also mean one line of valid JSON whose strings
// read back as s whenever s is valid UTF-8. (The oracle used to parse both lines back with
// nlohmann's SAX reader: two lexer passes and a dozen allocations per input, ~8 % of the
// target's CPU, for a weaker property than byte equality with nlohmann's dump.)
void check_requests(const std::string& s) {
  // The arguments and the expected lines live across inputs and are refilled in place: their
  // buffers stay, so an input does not pay an allocation (and ASan's bookkeeping of it) per copy.
  static std::vector<std::string> argv = {"", "x"};
  static std::optional<std::string> cwd = std::string();
  static std::vector<std::pair<std::string, std::string>> env = {{"", ""}, {"", "dup"}};
  static std::string want;
  argv[0] = s;
  *cwd = s;
  env[0].first = env[0].second = env[1].first = s;
  const std::string q = json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string exec = exec_request(7, s, argv, cwd, env, 1.5);
  want.assign(R"({"argv":[)").append(q).append(R"(,"x"],"cwd":)").append(q).append(R"(,"id":7,"op":"exec","session":)");
  want.append(q).append(R"(,"timeout_s":1.5,"env":{)").append(q).append(":").append(q).append(",").append(q).append(R"(:"dup"}})");
  FUZZ_CHECK_MSG(exec == want, exec + " != " + want);
  const std::string write = write_file_request(9, s, s, s);  // read_file_request is the same minus content
  want.assign(R"({"content":)").append(q).append(R"(,"id":9,"op":"write_file","path":)").append(q).append(R"(,"session":)");
  want.append(q).append("}");
  FUZZ_CHECK_MSG(write == want, write + " != " + want);
}

// --driver 'cmd args': splitting the shell-quoted form of any argv gives that argv back.
void check_split(const std::string& s) {
  std::vector<std::string> argv;
  try {
    argv = split_command_line(s);
  } catch (const Error& e) {
    FUZZ_EXPECT_CODED(e);
    return;
  }
  FUZZ_CHECK(!argv.empty());
  std::string quoted;
  quoted.reserve(s.size() + 3 * argv.size());
  for (const auto& a : argv) {
    if (!quoted.empty()) quoted += ' ';
    quoted += shell_quote(a);
  }
  FUZZ_CHECK_MSG(split_command_line(quoted) == argv, quoted);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_answer(text);
  // Short inputs are enough to reach every escaping path of the request builders,
  // and skipping them on long ones keeps the target fast (their JSON round trips dominate).
  if (size <= 64) check_requests(text);
  check_split(text);
  return 0;
}
