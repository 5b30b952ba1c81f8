// Fuzzes what a driver sends (sandboxed side): answers parse strictly, everything kept is typed, bounded and printable.
#include <cstddef>
#include <cstdint>
#include <string>

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
  interpret(r, [&] {
    const Hello h = parse_hello(r);
    for (const auto* s : {&h.name, &h.version, &h.platform}) FUZZ_CHECK(fuzz::is_printable(*s) && s->size() <= 300);
    for (const auto& m : h.capabilities.network) FUZZ_CHECK(m == "none" || m == "loopback" || m == "full");
    FUZZ_CHECK(h.capabilities.concurrent_exec >= 1 && h.capabilities.concurrent_exec <= 1024);
    FUZZ_CHECK(h.pinned_env.size() <= 256);
    for (const auto& [k, v] : h.pinned_env) FUZZ_CHECK(!k.empty() && k.size() <= 256 && k.find('=') == std::string::npos);
  });
  interpret(r, [&] { (void)parse_boot(r); });
  interpret(r, [&] {
    const ExecResult x = parse_exec(r);
    FUZZ_CHECK(x.exit_code || x.signal || x.timed_out);
    FUZZ_CHECK(!x.signal || (*x.signal >= 1 && *x.signal <= 128));
  });
  interpret(r, [&] { (void)parse_read_file(r); });
  interpret(r, [&] { expect_ok(r); });
}

std::size_t count_fffd(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t at = s.find("\xEF\xBF\xBD"); at != std::string_view::npos; at = s.find("\xEF\xBF\xBD", at + 3)) ++n;
  return n;
}

// Requests carry caller strings (paths, argv, env) that may not be UTF-8: every request is still one line of JSON.
void check_requests(const std::string& s) {
  // Valid UTF-8 exactly when replacing bad bytes adds no U+FFFD (no exception: they are slow under ASan;
  // one dump: ensure_ascii off copies valid text, U+FFFD included, byte for byte).
  const std::string replaced = json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  const bool utf8 = count_fffd(replaced) == count_fffd(s);
  const std::string exec = exec_request(7, s, {s, "x"}, s, {{s, s}, {s, "dup"}}, 1.5);
  FUZZ_CHECK(exec.find('\n') == std::string::npos);
  const json e = json::parse(exec);
  FUZZ_CHECK(e["op"] == "exec" && e["id"] == 7 && e["argv"].size() == 2 && e["env"].is_object());
  if (utf8) FUZZ_CHECK(e["argv"][0] == s && e["session"] == s && e["cwd"] == s);
  const std::string write = write_file_request(9, s, s, s);  // read_file_request is the same minus content
  FUZZ_CHECK(write.find('\n') == std::string::npos);
  if (utf8) FUZZ_CHECK(json::parse(write)["content"] == s);
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
  for (const auto& a : argv) quoted += (quoted.empty() ? "" : " ") + shell_quote(a);
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
