// Fuzzes attempt files (user input): parse_attempts_text accepts only attempts the runner can execute, else "[code]".
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "harness/model/expectation.h"
#include "harness/model/scenario.h"
#include "harness/model/target.h"

using namespace breakout;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Policy policy = [] {
    Policy p;
    p.name = "fuzz";
    p.description = "fuzz";
    p.writable_roots = {"extra"};
    p.deny_read = default_deny_read();
    p.network = NetworkMode::kLoopback;
    p.env.inherit = {"HOME", "PATH"};
    p.env.pinned = {{"PATH", "/usr/bin"}};
    return p;
  }();
  static const TreeRoots roots = placeholder_roots();

  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<Attempt> attempts;
  try {
    attempts = parse_attempts_text(text, "fuzz.toml");
  } catch (const Error& e) {
    FUZZ_EXPECT_CODED(e);
    return 0;
  }
  FUZZ_CHECK(!attempts.empty());
  for (const Attempt& a : attempts) {
    FUZZ_CHECK(!a.id.empty() && !a.title.empty() && !a.description.empty() && !a.reference.empty());
    for (const char c : a.id)
      FUZZ_CHECK_MSG(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_', a.id);
    FUZZ_CHECK(attempt_class_from(to_string(a.klass)) == a.klass);
    FUZZ_CHECK(a.probe == probe_for(a.klass));
    FUZZ_CHECK(has_targets(a.klass) == !a.targets.empty());
    FUZZ_CHECK(!is_contract(a.klass) || !a.param.empty());
    FUZZ_CHECK(!a.timeout || a.timeout->count() > 0);
    if (a.klass == AttemptClass::kTimeoutKill) FUZZ_CHECK(a.timeout_override && a.timeout);
    if (a.klass == AttemptClass::kNoTimeout) FUZZ_CHECK(a.timeout_override && !a.timeout);
    for (const auto& p : a.platforms) FUZZ_CHECK(p == "linux" || p == "windows");
    if (!has_targets(a.klass)) {
      (void)expect(a.klass, nullptr, policy, roots);
      continue;
    }
    for (const auto& text_target : a.targets) {
      const Target t = parse_target(text_target);  // accepted at load time: must parse again
      FUZZ_CHECK(t.text == text_target && !t.value.empty());
      try {
        const Expectation e = expect(a.klass, &t, policy, roots);
        FUZZ_CHECK(!e.why.empty());
      } catch (const Error& e) {
        FUZZ_EXPECT_CODED(e);  // e.g. an "ipc:" object of another class
      }
    }
  }
  return 0;
}
