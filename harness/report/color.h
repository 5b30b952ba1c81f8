// Colour in the terminal summary: when it is on (--color, NO_COLOR, a terminal) and how a verdict is painted.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace breakout {

enum class ColorMode { kAuto, kAlways, kNever };

// "auto", "always", "never" (the --color values, as in ls and git); nullopt for anything else.
std::optional<ColorMode> parse_color_mode(std::string_view text);

// always: on; never: off; auto: on only when the output is a terminal, NO_COLOR is unset or empty
// (https://no-color.org: set and not empty turns colour off) and TERM is not "dumb". `no_color` and
// `term` are the variables' values, nullptr when unset. An explicit --color=always wins over NO_COLOR,
// as no-color.org asks of per-invocation options.
bool color_enabled(ColorMode mode, bool output_is_terminal, const char* no_color, const char* term);

// `text` in the colour of `verdict` ("escape" bold red, "overblock" yellow) when `on`; else as it is.
// Only the verdicts a reader must not miss have a colour; others stay plain.
std::string paint_verdict(std::string_view verdict, std::string_view text, bool on);

}  // namespace breakout
