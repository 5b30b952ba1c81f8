// TOML basic strings and arrays written by hand (toml_emit.h says why).
#include "harness/core/toml_emit.h"

#include <cstdio>

namespace breakout {

std::string toml_quoted(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string toml_array(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + toml_quoted(v[i]);
  return out + "]";
}

}  // namespace breakout
