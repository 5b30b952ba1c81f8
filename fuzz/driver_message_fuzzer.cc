// Fuzzes what a driver sends (sandboxed side): answers parse strictly, everything kept is typed, bounded and printable.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_check.h"
#include "harness/driver/protocol.h"
#include "harness/report/escape.h"
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

std::size_t count_fffd(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t at = s.find("\xEF\xBF\xBD"); at != std::string_view::npos; at = s.find("\xEF\xBF\xBD", at + 3)) ++n;
  return n;
}

// Valid UTF-8 exactly when nlohmann's replacing dump adds no U+FFFD (no exception: they are slow
// under ASan; ensure_ascii off copies valid text, U+FFFD included, byte for byte). An oracle of its
// own: the request builders have their own UTF-8 check, which is what is under test.
bool valid_utf8(const std::string& s) {
  return count_fffd(json(s).dump(-1, ' ', false, json::error_handler_t::replace)) == count_fffd(s);
}

// The top level of one request line, read by nlohmann's SAX parser: no json object, and each
// string field compared in place with the caller string `expected` it was built from.
class RequestLine final : public nlohmann::json_sax<json> {
 public:
  explicit RequestLine(const std::string& expected) : expected_(expected) {}

  bool object = false;                       // the line is one JSON object
  std::string op;
  long long id = -1;
  std::size_t argv_size = 0;
  bool argv_array = false, env_object = false;
  int strings = 0, differing = 0;  // argv[0] and top-level session/cwd/path/content; those != expected

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t n) override { return number(n); }
  bool number_unsigned(number_unsigned_t n) override { return number(static_cast<long long>(n)); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool string(string_t& s) override {
    const bool first_arg = depth_ == 2 && key_ == "argv" && argv_size == 0;
    value();
    if (depth_ == 1 && key_ == "op") op = s;
    if (first_arg || (depth_ == 1 && (key_ == "session" || key_ == "cwd" || key_ == "path" || key_ == "content"))) {
      ++strings;
      differing += s != expected_;
    }
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) key_ = k;
    return true;
  }
  bool start_object(std::size_t) override {
    if (depth_ == 0) object = true;
    value();
    if (++depth_ == 2 && key_ == "env") env_object = true;
    return true;
  }
  bool start_array(std::size_t) override {
    value();
    if (++depth_ == 2 && key_ == "argv") argv_array = true;
    return true;
  }
  bool end_object() override { return --depth_, true; }
  bool end_array() override { return --depth_, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool value() {
    if (depth_ == 2 && key_ == "argv") ++argv_size;
    return true;
  }
  bool number(long long n) {
    value();
    if (depth_ == 1 && key_ == "id") id = n;
    return true;
  }
  const std::string& expected_;
  std::string key_;
  int depth_ = 0;
};

// Requests carry caller strings (paths, argv, env) that may not be UTF-8: every request is still one
// line of JSON, and every string field reads back as the caller's string when that is valid UTF-8.
void check_requests(const std::string& s) {
  const std::string exec = exec_request(7, s, {s, "x"}, s, {{s, s}, {s, "dup"}}, 1.5);
  FUZZ_CHECK(exec.find('\n') == std::string::npos);
  RequestLine e(s);
  FUZZ_CHECK_MSG(json::sax_parse(exec, &e) && e.object, exec);
  FUZZ_CHECK(e.op == "exec" && e.id == 7 && e.argv_array && e.argv_size == 2 && e.env_object);
  FUZZ_CHECK(e.strings == 3);
  const std::string write = write_file_request(9, s, s, s);  // read_file_request is the same minus content
  FUZZ_CHECK(write.find('\n') == std::string::npos);
  RequestLine w(s);
  FUZZ_CHECK_MSG(json::sax_parse(write, &w) && w.object, write);
  FUZZ_CHECK(w.op == "write_file" && w.id == 9 && w.strings == 3);
  // Read back differently only when there was no way to keep it: the oracle runs only then.
  if (e.differing || w.differing) FUZZ_CHECK(!valid_utf8(s));
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
