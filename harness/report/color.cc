// ANSI SGR colours for the terminal summary (ECMA-48 "Select Graphic Rendition"), and when to use them.
#include "harness/report/color.h"

namespace breakout {

std::optional<ColorMode> parse_color_mode(std::string_view text) {
  if (text == "auto") return ColorMode::kAuto;
  if (text == "always") return ColorMode::kAlways;
  if (text == "never") return ColorMode::kNever;
  return std::nullopt;
}

bool color_enabled(ColorMode mode, bool output_is_terminal, const char* no_color, const char* term) {
  if (mode != ColorMode::kAuto) return mode == ColorMode::kAlways;
  if (no_color && *no_color) return false;
  if (term && std::string_view(term) == "dumb") return false;
  return output_is_terminal;
}

std::string paint_verdict(std::string_view verdict, std::string_view text, bool on) {
  const char* sgr = !on ? nullptr : verdict == "escape" ? "\033[1;31m" : verdict == "overblock" ? "\033[33m" : nullptr;
  if (!sgr) return std::string(text);
  return sgr + std::string(text) + "\033[0m";
}

}  // namespace breakout
