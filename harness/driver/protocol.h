// Driver protocol v1 as data: request lines the harness writes, and strict parsing of what a driver answers.
//
// Pure functions, no I/O: the one place that decides what a driver may send
// (fuzzed by fuzz/driver_message_fuzzer.cc). Spec with an example exchange:
// docs/drivers.md. Everything parsed here came from the sandboxed side, so
// every field is type-checked and bounded and every error message carries
// only a printable excerpt of what was sent.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.h"
#include "harness/model/declared_refusal.h"

namespace breakout::driver {

inline constexpr int kProtocolVersion = 1;
inline constexpr std::size_t kMaxNesting = 32;  // deeper JSON is refused before parsing

// The error codes of protocol v1; anything else a driver sends is reported as "internal".
bool is_error_code(std::string_view code);
// The codes that are a clear refusal (invalid, unsupported, exec_failed): "it did not happen",
// a verdict (core/refusal.h). boot_failed, no_session and internal stay failures.
bool is_refusal_code(std::string_view code);

// A driver answer that violates the protocol (or a failure answer, see DriverFailure).
class ProtocolError : public Error {
 public:
  using Error::Error;
};

// How a failure answer reads: "driver answered <code>: <message>".
inline std::string failure_text(const std::string& code, const std::string& message) {
  return "driver answered " + code + ": " + message;
}

// {"ok": false, "error": {...}}: the driver refused or failed a request.
class DriverFailure : public Error {
 public:
  DriverFailure(std::string code, std::string message)
      : Error(failure_text(code, message)), code(std::move(code)), message(std::move(message)) {}
  std::string code;
  std::string message;  // printable, bounded (parse_response)
};

struct Response {
  long long id = 0;
  bool ok = false;
  std::string error_code, error_message;  // when !ok (printable, bounded)
  nlohmann::json body;                    // the whole object
};

struct Capabilities {
  std::vector<std::string> network;  // subset of none/loopback/full
  bool deny_read = false;
  bool deny_write = false;  // protected paths inside writable roots (policy.deny_write)
  int concurrent_exec = 1;
  bool fs = false;
  bool persistent_setup = false;  // narrowing setup changes stay after shutdown by design
};

struct Hello {
  std::string name, version, platform;
  Capabilities capabilities;
  std::map<std::string, std::string> pinned_env;
  // Mechanisms the sandbox refuses whatever the policy says, as a profile's [refuses.*]
  // declares them (model/declared_refusal.h); empty when hello has no "refuses".
  DeclaredRefusals refuses;
};

struct ExecResult {
  std::optional<int> exit_code, signal;
  std::string out, err;
  bool timed_out = false;
};

struct BootPolicy {
  std::optional<std::string> workspace;
  std::vector<std::string> writable_roots, deny_read;
  std::vector<std::string> deny_write;  // sent only when not empty: older drivers never see the key
  std::string network;                                  // none / loopback / full / proxy
  // network = proxy only ("host:port"): sent as policy.proxy {allow, deny}, absent otherwise.
  std::vector<std::string> proxy_allow, proxy_deny;
  std::optional<std::vector<std::string>> env_inherit;  // nullopt: "all"; empty: "none"
  std::map<std::string, std::string> env_set;
};

// Requests: one line of JSON each (no newline).
std::string hello_request(long long id);
std::string boot_request(long long id, const std::string& session, const BootPolicy& policy);
// `env` is a list, not a map: a name may appear twice, and then does so in the JSON text.
std::string exec_request(long long id, const std::string& session, const std::vector<std::string>& argv,
                         const std::optional<std::string>& cwd,
                         const std::vector<std::pair<std::string, std::string>>& env,
                         std::optional<double> timeout_s);
std::string shutdown_request(long long id, const std::string& session);
std::string write_file_request(long long id, const std::string& session, const std::string& path,
                               const std::string& content);
std::string read_file_request(long long id, const std::string& session, const std::string& path);

// Parses one answer line. Throws ProtocolError (bad JSON, no integer id, no boolean ok,
// a failure without a valid error object, nesting deeper than kMaxNesting).
Response parse_response(std::string_view line);

// Interpret a successful answer; throw DriverFailure for !ok and ProtocolError for bad fields.
Hello parse_hello(const Response& r);
std::string parse_boot(const Response& r);  // the workspace the driver uses
ExecResult parse_exec(const Response& r);
std::string parse_read_file(const Response& r);
void expect_ok(const Response& r);

}  // namespace breakout::driver
