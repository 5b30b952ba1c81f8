// Regression attempts files from live cases, TOML written by hand (regression.h).
#include "harness/live/regression.h"

#include <cctype>
#include <fstream>

#include "harness/core/error.h"
#include "harness/core/toml_emit.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

// "fs:~/.ssh/id_ed25519" -> "ssh-id_ed25519", "net:proxy-denied" -> "proxy-denied": the id
// alphabet is [A-Za-z0-9._-] (scenario.cc).
std::string slug(const std::string& target) {
  std::string out;
  for (const char ch : target.substr(target.find(':') + 1)) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    if (keep) out += ch;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// regression.<kind>.<form, PATH entry or spelling>.<target>[.envN]: live_attempt's id, renamed.
std::string regression_id(const LiveCase& c) {
  return "regression" + live_attempt(c).id.substr(4) + "." + slug(c.target) + (c.env ? ".env" + std::to_string(c.env) : "");
}

std::string attempt_toml(const Attempt& a, const std::string& id, const std::string& controls_from) {
  std::string t = "[[attempt]]\n";
  t += "id = " + toml_quoted(id) + "\n";
  t += "title = " + toml_quoted(a.title) + "\n";
  t += "description = " + toml_quoted(a.description) + "\n";
  t += "reference = " + toml_quoted(a.reference) + "\n";
  t += "platforms = " + toml_array(a.platforms) + "\n";
  t += "class = " + toml_quoted(to_string(a.klass)) + "\n";
  t += "probe = " + toml_quoted(a.probe) + "\n";
  if (!a.args.empty()) t += "args = " + toml_array(a.args) + "\n";
  if (!a.param.empty()) t += "param = " + toml_quoted(a.param) + "\n";
  if (!a.env.empty()) t += "env = " + toml_array(a.env) + "\n";
  if (a.uses_names) t += "uses = [\"names\"]\n";
  t += "targets = " + toml_array(a.targets) + "\n";
  if (!controls_from.empty()) t += "controls_from = " + toml_quoted(controls_from) + "\n";
  return t;
}

std::string hex(const std::vector<std::uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (const auto b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

}  // namespace

std::string regression_toml(const LiveCase& c, const std::string& origin, const std::vector<std::uint8_t>& bytes) {
  const std::string id = regression_id(c);
  const std::string suite = live_suite(c);
  std::string t = "# Written by `breakout repro --save` from " + origin + " (bytes " + hex(bytes) + ").\n" +
                  "# Found under policy " + c.policy + "; the " + suite + " suite runs it under each of its policies.\n" +
                  "# Fields: docs/scenarios.md; the live fuzzer: docs/fuzzing.md.\n\n";
  const auto control = live_control_attempt(c);
  t += attempt_toml(live_attempt(c), id, control ? id + ".control" : "");
  if (control) t += "\n" + attempt_toml(*control, id + ".control", "");
  return t;
}

fs::path regression_dir(const LiveCase& c, const fs::path& regressions) {
  return std::string(live_suite(c)) == "default" ? regressions : regressions / live_suite(c);
}

fs::path save_regression(const LiveCase& c, const fs::path& dir, const std::string& origin,
                         const std::vector<std::uint8_t>& bytes) {
  const std::string text = regression_toml(c, origin, bytes);
  const fs::path file = regression_dir(c, dir) / (regression_id(c) + ".toml");
  (void)parse_attempts_text(text, file.string());  // what we write must load: throws [code] otherwise
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw Error("cannot write " + file.string());
  return file;
}

}  // namespace breakout
