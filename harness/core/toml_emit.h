// Writing TOML by hand: basic strings and string arrays (TOML 1.0), for policy round trips and `repro --save`.
//
// Not toml++'s formatter: 3.3.0 prints a key holding a single quote bare
// ("a'b = 1"), which no parser accepts (fuzz/README.md, regression
// toml-formatter-bare-key-with-quote.toml).
#pragma once

#include <string>
#include <vector>

namespace breakout {

// A TOML basic string: quote, backslash and control characters escaped ("Basic strings", TOML 1.0).
std::string toml_quoted(const std::string& s);
// ["a", "b"] of toml_quoted strings.
std::string toml_array(const std::vector<std::string>& v);

}  // namespace breakout
