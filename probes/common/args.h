// Minimal command line parser for probes: `--name value`, `--name=value`, `--flag`.
//
// Anything unexpected (unknown option, missing value, repeated option, positional
// argument, bad number) prints the usage to stderr and exits 64 (EX_USAGE), so a
// scenario typo fails loudly instead of silently testing something else (the same
// reason bubblewrap's try-syscall refuses unknown arguments). `--help` prints the
// usage to stdout and exits 0.
//
//   Args a(argc, argv, kUsage, {{"path", Args::kValue}, {"echo", Args::kFlag}});
//   std::string p = a.require("path");
//   bool echo = a.has("echo");
//   long long n = a.get_int("bytes", 0, 1 << 30, 4096);
//
// Portable, header-only.
#pragma once

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace breakout::probe {

class Args {
 public:
  enum Kind { kFlag, kValue };
  struct Spec {
    const char* name;  // without the leading "--"
    Kind kind;
  };

  Args(int argc, char** argv, const char* usage, std::initializer_list<Spec> specs) : usage_(usage) {
    for (const auto& s : specs) specs_[s.name] = s.kind;
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::fputs(usage_, stdout);
        std::exit(0);
      }
      if (arg.substr(0, 2) != "--" || arg.size() == 2) usage_error("unexpected argument '" + std::string(arg) + "'");
      arg.remove_prefix(2);
      std::optional<std::string> inline_value;
      if (auto eq = arg.find('='); eq != std::string_view::npos) {
        inline_value = std::string(arg.substr(eq + 1));
        arg = arg.substr(0, eq);
      }
      const std::string name(arg);
      auto it = specs_.find(name);
      if (it == specs_.end()) usage_error("unknown option --" + name);
      if (values_.count(name)) usage_error("--" + name + " given twice");
      if (it->second == kFlag) {
        if (inline_value) usage_error("--" + name + " takes no value");
        values_[name] = "";
      } else if (inline_value) {
        values_[name] = *inline_value;
      } else {
        if (i + 1 >= argc) usage_error("--" + name + " needs a value");
        values_[name] = argv[++i];
      }
    }
  }

  bool has(const std::string& name) const { return values_.count(name) != 0; }

  std::optional<std::string> get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

  std::string require(const std::string& name) const {
    auto v = get(name);
    if (!v) usage_error("--" + name + " is required");
    return *v;
  }

  // The option as an integer in [lo, hi]; `fallback` when absent.
  long long get_int(const std::string& name, long long lo, long long hi, long long fallback) const {
    auto v = get(name);
    if (!v) return fallback;
    return parse_int(name, *v, lo, hi);
  }

  long long require_int(const std::string& name, long long lo, long long hi) const {
    return parse_int(name, require(name), lo, hi);
  }

  [[noreturn]] void usage_error(const std::string& why) const {
    std::fprintf(stderr, "error: %s\n%s", why.c_str(), usage_);
    std::exit(64);
  }

 private:
  long long parse_int(const std::string& name, const std::string& text, long long lo, long long hi) const {
    long long out = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    if (text.empty() || ec != std::errc() || ptr != end)
      usage_error("--" + name + " wants an integer, got '" + text + "'");
    if (out < lo || out > hi)
      usage_error("--" + name + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return out;
  }

  const char* usage_;
  std::map<std::string, Kind> specs_;
  std::map<std::string, std::string> values_;
};

}  // namespace breakout::probe
