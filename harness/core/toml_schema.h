// Schema checks for TOML tables: unknown and missing fields fail loudly, with a stable error code.
//
// Error messages start with "[<code>]" so negative fixtures can be named after
// the error they must raise (scenarios/fixtures/invalid/<code>.toml).
#pragma once

#include <toml++/toml.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace breakout::schema {

// Throws Error("[<code>] <where>: <message>").
[[noreturn]] void fail(std::string_view code, const std::string& where, const std::string& message);

// Rejects any key of `table` not in `allowed`.
void only_fields(const toml::table& table, std::initializer_list<std::string_view> allowed,
                 const std::string& where);

std::string required_string(const toml::table& t, std::string_view key, const std::string& where);
std::optional<std::string> optional_string(const toml::table& t, std::string_view key,
                                           const std::string& where);
std::vector<std::string> string_array(const toml::table& t, std::string_view key,
                                      const std::string& where, bool required);
std::optional<std::int64_t> optional_int(const toml::table& t, std::string_view key,
                                         const std::string& where);

// Parses TOML text; syntax errors become "[toml-syntax]".
toml::table parse(const std::string& text, const std::string& origin);
std::string read_file(const std::string& path);

}  // namespace breakout::schema
