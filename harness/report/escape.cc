// html_escape, markdown_escape, shell_quote.
#include "harness/report/escape.h"

#include <cstdio>
#include <cstring>

namespace breakout {

namespace {

void control_byte(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
          control_byte(out, c);
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

std::string markdown_escape(std::string_view s) {
  static const char* kPunct = "\\`*_{}[]()#+-.!|~=:$";
  std::string out;
  for (unsigned char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else if (c < 0x20 || c == 0x7f) control_byte(out, c);
    else if (std::strchr(kPunct, c)) out += '\\', out += static_cast<char>(c);
    else out += static_cast<char>(c);
  }
  return out;
}

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace breakout
